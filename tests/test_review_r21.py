"""Fresh-eyes review of round 21 (issue #14): the readers fx23 added, tried on texts they were not written from.

Each case is a realistic synthetic text a user could paste, with a one-line reason. The decoys must read nothing of
the reader under review (a claim on them is a miss); the same class in other wordings must still be read.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.display_watchdog import watchdog_killed_kernel
from gpuassist.ingest.jetson_mounts import jetpack_4_shown


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# --- display_watchdog -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # a game launcher's "unknown error" and a black screen: no CUDA anywhere
        "Steam says 'An unknown error occurred' and then the screen goes black while playing Elden Ring.\n"
        "I have an RTX 3060, PyTorch is fine.\n",
        # the screen blanking at resume from suspend with CUDA's 999: power management / UVM, not a killed kernel
        "After my laptop resumes from suspend the screen goes black for a second, and torch.cuda.is_available() "
        "warns: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment\n",
        # a black screen after a driver update: the driver install's story
        "After the driver update my screen went black, and now PyTorch says RuntimeError: CUDA error: unknown error\n",
        # torch's init warning ("CUDA initialization: CUDA unknown error") ran no kernel; the monitor is a cable matter
        "My second monitor goes black sometimes, probably the cable.\n"
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, "
        "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.\n",
        # pip's "unknown error" and a monitor going black in a game, told as a separate matter
        "pip install torch failed: unknown error while downloading.\n"
        "My monitor goes black when I launch a game too, separate issue.\n",
    ],
)
def test_blank_screen_decoys_are_not_the_watchdog(text: str) -> None:
    assert watchdog_killed_kernel(text.splitlines()) is None
    assert "cuda_kernel_launch_failed" not in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        # CUDA's own timeout with Windows' recovery message
        "RuntimeError: CUDA error: the launch timed out and was terminated\n"
        "Windows showed: Display driver nvlddmkm stopped responding and has successfully recovered.\n",
        # the lost context after the reset, by name, with the display flickering
        "During training the display flickers and then I get cudaErrorLaunchFailure in my loss.backward().\n",
        # CUDA's unknown error with CUDA named on the line, the screen going black mid-run
        "Rendering a 8k frame, the screen went black and cudaDeviceSynchronize returned CUDA error: unknown error\n",
    ],
)
def test_killed_kernel_with_display_reset_is_the_watchdog(text: str) -> None:
    assert _ids(text)[:1] == ["cuda_kernel_launch_failed"]


# --- insufficient_driver_gpuless ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # "it works on the CPU" is the comparison every CUDA failure report makes, on a machine with a GPU
        "Training works if I'm using the CPU, but with device='cuda' I get:\n"
        "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n",
        # "runs without GPU" says what was run, not what the machine has
        "The script runs fine without GPU. With .cuda() it fails: cudaErrorInsufficientDriver: CUDA driver version "
        "is insufficient for CUDA runtime version\n",
        # the GPU-less machine is the cluster's login node; the failure is on a compute node with a GPU
        "The login node has no GPU, so I submit to the gpu partition. There the job prints: RuntimeError: CUDA "
        "driver version is insufficient for CUDA runtime version\n",
        # the same on two lines
        "The login node has no GPU.\n"
        "On the compute node: RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n",
    ],
)
def test_ran_on_the_cpu_is_no_gpuless_machine(text: str) -> None:
    assert _ids(text)[:1] == ["driver_too_old"]


def test_a_vm_said_to_have_no_gpu_is_still_read() -> None:
    # the user says the machine itself has no GPU: no driver to be too old
    text = (
        "This VM has no GPU at all, yet importing my package gives: CUDA driver version is insufficient for CUDA "
        "runtime version\n"
    )
    ids = _ids(text)
    assert "driver_too_old" not in ids
    assert "no_nvidia_gpu" in ids


# --- messages.py: number-first 802/803/804 and Caffe's CHECK_EQ ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        # a script's line number followed by Python's syntax error
        ("torch training: train.py line 802 syntax error after I edited it\n", "fabric_manager_missing"),
        # an HTTP-ish application status, CUDA named only after it
        (
            "Our inference API returned an 802 error to the client; the CUDA side is fine, nvidia-smi shows the GPU.\n",
            "fabric_manager_missing",
        ),
        # an app's own code in another sentence than CUDA's
        ("CUDA works. Separately, our REST API gives an 804 error.\n", "forward_compat_unsupported_hw"),
        # a port number that begins with 802
        ("Error: listen EADDRINUSE port 8021; torch.cuda.is_available() True\n", "fabric_manager_missing"),
    ],
)
def test_a_number_before_error_without_cuda_is_no_cuda_error(text: str, claimed: str) -> None:
    assert claimed not in _ids(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the number-first prose fx23 was written for, in other wordings
        ("On our DGX A100, CUDA init fails with 802 system error every time.\n", "fabric_manager_missing"),
        (
            "torch.cuda.init() gives an 804 error on my GTX 1080 with the cuda-compat package installed.\n",
            "forward_compat_unsupported_hw",
        ),
        ("nvidia-smi is fine but cuInit fails: 803 error.\n", "driver_library_mismatch"),
        # Caffe's CUDA_CHECK through glog, another error than the one it was written from
        (
            "F1125 10:00:00.123 12345 syncedmem.cpp:71] Check failed: error == cudaSuccess (2 vs. 0)  out of memory\n",
            "cuda_out_of_memory",
        ),
    ],
)
def test_cuda_numbers_and_caffe_checks_in_other_wordings(text: str, expected: str) -> None:
    assert expected in _ids(text)


def test_a_glog_check_unrelated_to_cuda_reads_no_cuda_error() -> None:
    # glog's CHECK_EQ on a layer's shape: "(2 vs. 1)" is no CUDA status
    text = (
        "F1125 10:00:00.1 1 net.cpp:100] Check failed: top_vec.size() == 1 (2 vs. 1) layer needs one top\n"
        "*** Check failure stack trace: *** caffe on GPU\n"
    )
    assert not any(i.startswith("cuda_") for i in _ids(text))


# --- jetson_mounts.jetpack_4_shown ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # apt show on JetPack 5
        "Package: nvidia-jetpack\nVersion: 5.1.2-b104\nArchitecture: arm64\n"
        "Depends: nvidia-jetpack-runtime (= 5.1.2-b104), nvidia-jetpack-dev (= 5.1.2-b104)\n",
        # dpkg -l on JetPack 5
        "ii  nvidia-jetpack   5.1.2-b104   arm64   NVIDIA Jetpack Meta Package\n",
        # apt list with an upgrade from 5.1.2
        "nvidia-jetpack/stable 5.1.3-b29 arm64 [upgradable from: 5.1.2-b104]\n",
        # apt show of two packages with the blank line lost in the paste: the 4.x is python3-yaml's
        "Package: nvidia-jetpack\nVersion: 5.1.2-b104\nPackage: python3-yaml\nVersion: 4.0.1-1\n",
    ],
)
def test_jetpack_5_is_not_jetpack_4(text: str) -> None:
    assert not jetpack_4_shown(text.splitlines())


@pytest.mark.parametrize(
    "text",
    [
        # apt show on JetPack 4.6
        "Package: nvidia-jetpack\nVersion: 4.6-b199\nArchitecture: arm64\n",
        # dpkg -s: Version comes eight lines below Package
        "Package: nvidia-jetpack\nStatus: install ok installed\nPriority: standard\nSection: metapackages\n"
        "Installed-Size: 194\nMaintainer: NVIDIA Corporation\nArchitecture: arm64\nSource: nvidia-jetpack (4.6.4)\n"
        "Version: 4.6.4-b39\n",
        # apt list --installed
        "nvidia-jetpack/stable,now 4.6.4-b39 arm64 [installed]\n",
    ],
)
def test_jetpack_4_package_versions_are_read(text: str) -> None:
    assert jetpack_4_shown(text.splitlines())
