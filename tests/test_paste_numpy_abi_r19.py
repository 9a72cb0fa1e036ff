"""Round 19 (issue #14): NumPy's C-API check failing while torch imports is torch's import failing
(torch_import_error, with the NumPy fix the message calls for); the same NumPy words under another package's import,
or in prose with nothing of torch, blame nothing of torch. Synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.numpy_abi import numpy_fix

OLD_NUMPY_UNDER_TORCH = (
    "$ python train.py\n"
    "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd\n"
    "Traceback (most recent call last):\n"
    '  File "train.py", line 3, in <module>\n'
    "    import torch\n"
    '  File "/opt/env/lib/python3.8/site-packages/torch/__init__.py", line 190, in <module>\n'
    "    from torch._C import *\n"
    "ImportError: numpy.core.multiarray failed to import\n"
)
ABI_AT_PROMPT = (
    ">>> import torch\n"
    "RuntimeError: module compiled against ABI version 0x1000009 but this version of numpy is 0x2000000\n"
    "ImportError: numpy.core._multiarray_umath failed to import\n"
)
NUMPY2_UNDER_TORCH = (
    "A module that was compiled using NumPy 1.x cannot be run in\n"
    "NumPy 2.1.3 as it may crash. To support both 1.x and 2.x\n"
    "versions of NumPy, modules must be compiled with NumPy 2.0.\n"
    'Traceback (most recent call last):  File "/srv/app/run.py", line 2, in <module>\n'
    "    from torch import nn\n"
    "AttributeError: _ARRAY_API not found\n"
)


@pytest.mark.parametrize("text", [OLD_NUMPY_UNDER_TORCH, ABI_AT_PROMPT, NUMPY2_UNDER_TORCH])
def test_numpy_c_api_clash_under_torch_is_torch_import_error(text: str) -> None:
    report = load_text(text)
    first = report.findings[0]
    assert (first.id, first.severity) == ("torch_import_error", Severity.ERROR)
    assert "numpy" in first.fix.lower()
    assert not {"cpu_only_build", "torch_not_installed", "no_nvidia_driver"} & {f.id for f in report.findings}


def test_fix_follows_the_direction_numpy_gives() -> None:
    older = numpy_fix(OLD_NUMPY_UNDER_TORCH.splitlines())
    assert older is not None and "--upgrade numpy" in older and "numpy<2" not in older
    newer = numpy_fix(["RuntimeError: module compiled against API version 0x9 but this version of numpy is 0x10"])
    assert newer is not None and "numpy<2" in newer
    numpy2 = numpy_fix(NUMPY2_UNDER_TORCH.splitlines())
    assert numpy2 is not None and "numpy<2" in numpy2
    assert numpy_fix(["ImportError: No module named cv2"]) is None


@pytest.mark.parametrize(
    "text",
    [
        # another package's import fails on the same NumPy words; torch is not in the text
        "Traceback (most recent call last):\n"
        '  File "detect.py", line 1, in <module>\n'
        "    import cv2\n"
        "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd\n"
        "ImportError: numpy.core.multiarray failed to import\n",
        '  File "/usr/lib/python3/dist-packages/scipy/sparse/__init__.py", line 8, in <module>\n'
        "A module that was compiled using NumPy 1.x cannot be run in\n"
        "NumPy 2.0.2 as it may crash.\n"
        "AttributeError: _ARRAY_API not found\n",
        # NumPy's words quoted in prose about a package that is not torch
        "Python 3.10, CUDA 12.1: pandas prints 'numpy.core.multiarray failed to import' after I upgraded;\n"
        "reinstalling pandas fixed it\n",
    ],
)
def test_numpy_words_without_torch_import_do_not_blame_torch(text: str) -> None:
    report = load_text(text)
    assert "torch_import_error" not in {f.id for f in report.findings if f.severity is not Severity.INFO}


NUMPY2_WARNING_TORCH_WORKS = (
    "A module that was compiled using NumPy 1.x cannot be run in\n"
    "NumPy 2.0.1 as it may crash. To support both 1.x and 2.x\n"
    "versions of NumPy, modules must be compiled with NumPy 2.0.\n"
    'Traceback (most recent call last):  File "<stdin>", line 1, in <module>\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/__init__.py", line 1477, in <module>\n'
    "    from .functional import *  # noqa: F403\n"
    "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/transformer.py:20: UserWarning: Failed to initialize "
    "NumPy: _ARRAY_API not found (Triggered internally at ../torch/csrc/utils/tensor_numpy.cpp:84.)\n"
    ">>> torch.cuda.is_available()\n"
    "True\n"
)


def test_numpy_warning_while_torch_imports_and_works_is_not_an_error() -> None:
    report = load_text(NUMPY2_WARNING_TORCH_WORKS)
    assert all(f.severity is Severity.INFO for f in report.findings if f.id == "torch_import_error")


def test_numpy_warning_then_a_raised_error_keeps_the_claim() -> None:
    # Counter-example: the same warning and CUDA working, but a conversion then fails: torch's bridge is broken.
    text = NUMPY2_WARNING_TORCH_WORKS + (
        "Traceback (most recent call last):\n"
        '  File "infer.py", line 40, in <module>\n'
        "    x = torch.tensor(batch.values)\n"
        "RuntimeError: Could not infer dtype of numpy.float32\n"
    )
    first = load_text(text).findings[0]
    assert (first.id, first.severity) == ("torch_import_error", Severity.ERROR)
