"""Round 18 (issue #14): torch's own import failing, read from torch/__init__.py's messages and the traceback's
frames; each class with synthetic texts that must be read and counter-examples that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ---- Windows: torch\__init__.py's own DLL loading fails (ctypes.CDLL / LoadLibrary / from torch._C import *) ------


@pytest.mark.parametrize(
    "text",
    [
        # torch 1.5-era: ctypes.CDLL(dll) for each torch\lib\*.dll, a bare WinError with no DLL named
        ">>> import torch\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "D:\\envs\\py38\\lib\\site-packages\\torch\\__init__.py", line 79, in <module>\n'
        "    ctypes.CDLL(dll)\n"
        '  File "D:\\envs\\py38\\lib\\ctypes\\__init__.py", line 373, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: [WinError 127] The specified procedure could not be found\n",
        # torch <= 1.4: Python's own DLL load failure importing torch._C
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    import torch\n"
        '  File "C:\\Users\\me\\AppData\\Roaming\\Python\\Python37\\site-packages\\torch\\__init__.py", line 81\n'
        "    from torch._C import *\n"
        "ImportError: DLL load failed: A dynamic link library (DLL) initialization routine failed.\n",
        # IPython's older traceback headers
        "OSError                                   Traceback (most recent call last)\n"
        "<ipython-input-1-eb42ca6e4af3> in <module>\n"
        "----> 1 import torch\n"
        "~\\anaconda3\\envs\\dl\\lib\\site-packages\\torch\\__init__.py in <module>\n"
        "     80     for dll in dlls:\n"
        "---> 81         ctypes.CDLL(dll)\n"
        "~\\anaconda3\\envs\\dl\\lib\\ctypes\\__init__.py in __init__(self, name, mode, handle, use_errno)\n"
        "--> 364             self._handle = _dlopen(self._name, mode)\n"
        "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed\n",
    ],
)
def test_dll_failure_inside_torch_init_is_import_error(text: str) -> None:
    assert _ids(text)[:1] == ["torch_import_error"]


@pytest.mark.parametrize(
    "text",
    [
        # the same WinError raised by another package loading its own DLL: not torch's import
        "Traceback (most recent call last):\n"
        '  File "run.py", line 2, in <module>\n'
        "    import somepkg\n"
        '  File "C:\\py\\lib\\site-packages\\somepkg\\__init__.py", line 12, in <module>\n'
        "    ctypes.CDLL(path)\n"
        '  File "C:\\py\\lib\\ctypes\\__init__.py", line 364, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: [WinError 126] The specified module could not be found\n",
        # a WinError with no traceback at all names no program
        "OSError: [WinError 126] The specified module could not be found\n",
    ],
)
def test_dll_failure_elsewhere_is_not_torch_import(text: str) -> None:
    assert "torch_import_error" not in _ids(text)[:1]


# ---- torch's compiled extension torch._C missing ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '  File "/opt/venv/lib/python3.10/site-packages/torch/__init__.py", line 237, in <module>\n'
        "    from torch._C import *\n"
        "ModuleNotFoundError: No module named 'torch._C'\n",
        "python demo.py fails with: No module named 'torch._C', torch 2.0.1 is in pip list\n",
        "ImportError: No module named torch._C\n",
    ],
)
def test_torch_extension_module_missing_is_import_error(text: str) -> None:
    assert _ids(text)[:1] == ["torch_import_error"]


@pytest.mark.parametrize(
    "text",
    [
        # a submodule missing from a build without that feature, and another package's own extension
        "ModuleNotFoundError: No module named 'torch._C._distributed_c10d'; 'torch._C' is not a package\n",
        "ModuleNotFoundError: No module named 'torchvision._C'\n",
    ],
)
def test_other_c_modules_are_not_torch_extension_missing(text: str) -> None:
    assert "torch_import_error" not in _ids(text)[:1]


def test_source_tree_still_outranks_the_missing_extension() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/u/src/pytorch/torch/__init__.py", line 45, in <module>\n'
        "    from torch._C import *\n"
        "ModuleNotFoundError: No module named 'torch._C'\n"
    )
    assert _ids(text)[:1] == ["stale_or_shadowed_torch"]
