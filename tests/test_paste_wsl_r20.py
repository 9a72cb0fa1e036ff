"""Round 20 (issue #14): a Linux path under WSL's drvfs automount of a Windows drive (/mnt/c/Users/..., the default
automount root /mnt/ of wsl.conf) places the program inside WSL even when the text never says "WSL", so CUDA's "no
device" there reads as WSL's libcuda path first (wsl_no_device.py). Other /mnt/ mounts are ordinary Linux disks.
Synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

NUMBA_TAIL = (
    '    raise CudaSupportError(f"Error at driver init: {description}")\n'
    "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE "
    "(100)\n"
)


def _traceback(site_packages: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{site_packages}/numba/cuda/cudadrv/driver.py", line 258, in ensure_initialized\n' + NUMBA_TAIL
    )


@pytest.mark.parametrize(
    "site_packages",
    [
        "/mnt/c/Users/ana/work/rf/.venv/lib/python3.12/site-packages",
        "/mnt/d/ProgramData/miniconda3/envs/rapids/lib/python3.11/site-packages",
    ],
)
def test_program_under_a_windows_drive_mount_is_in_wsl(site_packages: str) -> None:
    report = load_text(_traceback(site_packages))
    assert report.facts.value("platform.wsl") is not None
    assert report.findings[0].id == "wsl_libcuda_problem"


@pytest.mark.parametrize(
    "site_packages",
    [
        "/mnt/data/users/ana/.venv/lib/python3.12/site-packages",  # a data disk, not a drive letter
        "/home/ana/mnt/c/Users/x/.venv/lib/python3.12/site-packages",  # not the root automount
        "/run/desktop/mnt/host/c/Users/ana/.venv/lib/python3.12/site-packages",
    ],
)
def test_other_mounts_are_not_wsl(site_packages: str) -> None:
    report = load_text(_traceback(site_packages))
    assert report.facts.value("platform.wsl") is None
    assert "wsl_libcuda_problem" not in {f.id for f in report.findings}
