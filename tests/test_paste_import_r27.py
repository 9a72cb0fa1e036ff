"""Round 27 (issue #14): a Windows torch wheel from PyTorch's own index (torch_stable.html, /whl/cuNNN) that fails
at import. Its untagged file name is not PyPI's CPU build there (PyPI had no Windows torch up to 1.1.0, and the 2019
torch_stable.html listed the default CUDA build untagged), so no cpu_only_build is read from it, and the import
failure leads (a bug template's step "import torch" is torch being imported: paste_causes.TORCH_IMPORT_CONTEXT,
round 26). PyPI's untagged Windows wheel stays the CPU build. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


STEPS = (
    "## To Reproduce\n"
    "1. `pip install torch==1.2.0 -f https://download.pytorch.org/whl/torch_stable.html`\n"
    "2. `import torch`\n"
    "3. see `ImportError: DLL load failed: The specified procedure could not be found.`\n"
    "the wheel file torch-1.2.0-cp36-cp36m-win_amd64.whl lacks cudnn64_7.dll\n"
)


def test_step_import_failure_is_torch_import_error_not_cpu_build() -> None:
    ids = _ids(STEPS)
    assert ids and ids[0] == "torch_import_error"
    assert "cpu_only_build" not in ids


def test_untagged_windows_wheel_from_pypi_is_still_the_cpu_build() -> None:
    text = (
        "pip install torch on Windows 11 with an RTX 3060 gave me torch-2.1.0-cp311-cp311-win_amd64.whl and\n"
        "torch.cuda.is_available() is False\n"
    )
    assert "cpu_only_build" in _ids(text)
