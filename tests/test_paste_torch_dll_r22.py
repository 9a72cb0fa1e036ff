"""Round 22 (issue #14): torch's Windows DLL loading failing, named by a relative torch\\lib path or by torch 1.x's
caffe2_detectron_ops DLL.

torch/__init__.py's _load_dll_libraries() appends 'Error loading "<dll>" or one of its dependencies.' to the
WinError of any DLL in torch\\lib that does not load; a bundled app prints the path relative to its folder, and the
1.x Windows wheels shipped caffe2_detectron_ops(_gpu).dll there. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_relative_torch_lib_path_is_torch_import_error() -> None:
    text = (
        "My packaged app on Windows 10 stops at start:\n"
        'OSError: [WinError 126] The specified module could not be found. Error loading "torch\\lib\\c10_cuda.dll" '
        "or one of its dependencies.\n"
    )
    assert _ids(text)[:1] == ["torch_import_error"]


def test_caffe2_detectron_ops_dll_named_alone() -> None:
    text = "PyTorch 1.13 on Windows: caffe2_detectron_ops_gpu.dll or one of its dependencies could not be loaded\n"
    assert _ids(text)[:1] == ["torch_import_error"]


def test_torch_lib_listed_without_a_failure_is_nothing() -> None:
    # the DLLs named in a folder listing of a working install: nothing failed to load
    text = (
        "PyTorch 1.13 works on the GPU; dir torch\\lib shows caffe2_detectron_ops_gpu.dll and c10_cuda.dll, "
        "can I drop them from my bundle?\n"
    )
    assert "torch_import_error" not in _ids(text)
