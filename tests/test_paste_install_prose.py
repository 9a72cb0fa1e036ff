"""General mechanisms behind the install / prose misses of held-out batch after-rules-18 and earlier batches
(tests/data/errors/index.d/after-rules-18.json): short synthetic texts in the formats pip, zsh and people write,
each with a counter-example that must not trigger the same verdict."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge.wheels import capability_from_name
from gpuassist.report.model import Report


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _errors(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is Severity.ERROR]


# pip with no wheel for the platform (32-bit Python, or a Windows of the days before PyPI had Windows wheels) falls
# back to PyPI's placeholder sdist torch-0.1.2.post2 and tries to build it.
PLACEHOLDER_SDIST = (
    "C:\\work>py -m pip install torch\n"
    "Collecting torch\n"
    "  Downloading torch-0.1.2.post2.tar.gz (128 kB)\n"
    "Building wheels for collected packages: torch\n"
    "  Building wheel for torch (setup.py) ... error\n"
    "  ERROR: Command errored out with exit status 1\n"
)


def test_pip_building_the_placeholder_sdist_means_no_wheel_fits() -> None:
    report = load_text(PLACEHOLDER_SDIST)
    assert _ids(report)[0] == "no_wheel_for_platform"
    assert report.findings[0].severity is Severity.ERROR


def test_the_placeholder_is_recognised_by_the_build_step_alone() -> None:
    text = "Installing collected packages: torch\n    Running setup.py install for torch ... error\n"
    assert _ids(load_text(text))[0] == "no_wheel_for_platform"


def test_a_real_torch_wheel_download_is_not_the_placeholder() -> None:
    text = (
        "Collecting torch==2.4.1\n"
        "  Downloading torch-2.4.1-cp311-cp311-manylinux1_x86_64.whl (797.1 MB)\n"
        "Successfully installed torch-2.4.1\n"
    )
    assert "no_wheel_for_platform" not in _ids(load_text(text))


# zsh is macOS's default shell: its prompt ends in "%", and the host keeps the Mac's name ("MBP", "Mac-mini").
MAC_CUDA_INDEX = (
    "(ml) ana@Anas-MBP project % pip install torch==2.3.0 --index-url https://download.pytorch.org/whl/cu121\n"
    "Looking in indexes: https://download.pytorch.org/whl/cu121\n"
    "ERROR: Could not find a version that satisfies the requirement torch==2.3.0 (from versions: none)\n"
    "ERROR: No matching distribution found for torch==2.3.0\n"
)


def test_a_cuda_index_miss_at_a_mac_prompt_is_macos_having_no_cuda() -> None:
    report = load_text(MAC_CUDA_INDEX)
    assert report.facts.value("host.os") == "Darwin"
    assert _ids(report)[0] == "macos_no_cuda_use_mps"
    assert "no_wheel_for_platform" not in _errors(report)


def test_a_mac_mini_prompt_is_a_mac_too() -> None:
    text = MAC_CUDA_INDEX.replace("ana@Anas-MBP project %", "ana@Anas-Mac-mini ~ %")
    assert load_text(text).facts.value("host.os") == "Darwin"


def test_a_zsh_prompt_on_a_linux_host_is_not_a_mac() -> None:
    text = MAC_CUDA_INDEX.replace("ana@Anas-MBP project %", "ana@gpu-node7 project %")
    report = load_text(text)
    assert report.facts.value("host.os") != "Darwin"
    assert _ids(report)[0] == "no_wheel_for_platform"


def test_a_host_name_merely_containing_mac_is_not_a_mac() -> None:
    text = MAC_CUDA_INDEX.replace("ana@Anas-MBP project %", "ana@dmac-gpu1 project %")
    assert load_text(text).facts.value("host.os") != "Darwin"


def test_a_pypi_miss_on_a_mac_stays_a_wheel_problem() -> None:
    # Plain PyPI has macOS wheels: finding none there is about the Python (too new, x86_64), not about CUDA.
    text = (
        "bob@Bobs-MBP ~ % python3.14 -m pip install torch==2.3.0\n"
        "ERROR: Could not find a version that satisfies the requirement torch==2.3.0 (from versions: 2.9.0, 2.9.1)\n"
        "ERROR: No matching distribution found for torch==2.3.0\n"
    )
    report = load_text(text)
    assert report.facts.value("host.os") == "Darwin"
    assert _ids(report)[0] == "no_wheel_for_platform"


# The CPU build stated in words: "pip did not install any CUDA packages" (a CUDA torch on Linux pulls nvidia-* ones).
def test_no_cuda_packages_installed_reads_as_a_cpu_build() -> None:
    text = (
        "I created a fresh env and ran pip install -r requirements.txt, training starts but runs on the CPU.\n"
        "torch.cuda.is_available() returns False. pip didn't install any CUDA libraries at all.\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "cpu_only_build"
    assert report.findings[0].severity is Severity.WARNING  # words, not a tool's output: a possibility


def test_not_installing_the_cuda_toolkit_is_not_a_cpu_build() -> None:
    # torch wheels bring their own CUDA runtime: a missing system toolkit says nothing about the build.
    text = (
        "conda install pytorch pytorch-cuda=12.1 -c pytorch -c nvidia does not install the CUDA toolkit, "
        "nvcc is missing. Do I need it to use the GPU?\n"
    )
    assert "cpu_only_build" not in _ids(load_text(text))


# Batch after-rules-23's misses.
def test_a_torch_dll_that_windows_cannot_find_means_import_torch_fails() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "app.py", line 1, in <module>\n'
        "    import torch\n"
        "FileNotFoundError: Could not find module "
        "'C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\lib\\torch_cpu.dll' (or one of its dependencies). "
        "Try using the full path with constructor syntax.\n"
    )
    assert _ids(load_text(text))[0] == "torch_import_error"


def test_another_programs_missing_dll_is_not_torchs() -> None:
    text = "FileNotFoundError: Could not find module 'C:\\tools\\sdl\\SDL2.dll' (or one of its dependencies).\n"
    assert "torch_import_error" not in _ids(load_text(text))


def test_torchs_vc_redist_warning_names_the_import_failure() -> None:
    text = (
        "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n"
        "                 It can be downloaded at https://aka.ms/vs/16/release/vc_redist.x64.exe\n"
        "Traceback (most recent call last):\n"
        '  File "C:\\bot\\run.py", line 2, in <module>\n'
        "    import torch\n"
        "ImportError: DLL load failed: ????\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "torch_import_error"
    assert report.findings[0].severity is Severity.ERROR


def test_a_dll_load_failure_of_another_module_is_not_blamed_on_torch() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "cam.py", line 1, in <module>\n'
        "    import cv2\n"
        "ImportError: DLL load failed: The specified module could not be found.\n"
    )
    assert "torch_import_error" not in _ids(load_text(text))


def test_invalid_device_function_on_an_old_gpu_is_its_arch_missing_from_the_build() -> None:
    text = (
        "RuntimeError: cuda runtime error (8) : invalid device function at /pytorch/lib/THC/THCTensorCopy.cu:204\n"
        "My card is a GeForce GTX1050 (laptop).\n"
    )
    assert _ids(load_text(text))[0] == "gpu_arch_dropped_from_build"


def test_invalid_device_function_on_a_new_gpu_is_the_build_being_too_old() -> None:
    text = "RuntimeError: CUDA error: invalid device function\nGPU: RTX5090 32GB\n"
    assert _ids(load_text(text))[0] == "gpu_arch_too_new_for_build"


def test_gpu_names_written_without_the_space_are_known() -> None:
    assert capability_from_name("NVIDIA GeForce GTX1060 6GB") == "6.1"
    assert capability_from_name("RTX3090") == "8.6"
    assert capability_from_name("Quadro RTX5000") == "7.5"  # not the GeForce RTX 50xx
    assert capability_from_name("MX150") == "6.1"  # already unspaced in the table


def test_an_amd_gpu_named_as_the_machines_own_means_no_nvidia_gpu() -> None:
    text = "I have an AMD Radeon RX 6700 XT card on Windows 11 and torch.cuda.is_available() is always False.\n"
    report = load_text(text)
    assert _ids(report)[0] == "no_nvidia_gpu"
    assert "cpu_only_build" not in _errors(report)


def test_an_amd_cpu_next_to_an_nvidia_gpu_is_not_no_gpu() -> None:
    text = "I have an AMD Ryzen 9 CPU with an RTX 3060 card, yet torch.cuda.is_available() returns False.\n"
    assert "no_nvidia_gpu" not in _ids(load_text(text))


CONDA_CUDA_NOT_FOUND = (
    "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
    "  - pytorch-cuda=12.4*\n\n"
    "Current channels:\n\n"
    "  - https://conda.anaconda.org/pytorch\n"
)


def test_conda_finding_no_cuda_package_on_a_mac_is_macos_having_no_cuda() -> None:
    report = load_text("MacBook Air M3, macOS 15.1\n" + CONDA_CUDA_NOT_FOUND)
    assert _ids(report)[0] == "macos_no_cuda_use_mps"


def test_a_cuda_that_conda_could_not_install_is_not_the_builds() -> None:
    text = "$ conda install pytorch pytorch-cuda=12.4 -c pytorch -c nvidia\n" + CONDA_CUDA_NOT_FOUND
    assert load_text(text).facts.value("torch.cuda_build") is None
    installed = "$ conda install pytorch pytorch-cuda=12.4 -c pytorch -c nvidia\nExecuting transaction: done\n"
    assert load_text(installed).facts.value("torch.cuda_build") == "12.4"


def test_the_same_conda_miss_on_linux_is_not_a_mac_problem() -> None:
    report = load_text("Ubuntu 22.04, RTX 4090\n" + CONDA_CUDA_NOT_FOUND)
    assert "macos_no_cuda_use_mps" not in _ids(report)


def test_works_in_the_terminal_not_in_the_notebook_is_the_notebooks_interpreter() -> None:
    text = (
        "import torch works fine in the Anaconda prompt.\n"
        "But in the Jupyter notebook it fails with ModuleNotFoundError: No module named 'torch'\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "wrong_interpreter_or_kernel"
    assert "torch_not_installed" not in _errors(report)


def test_no_module_named_torch_alone_is_torch_missing() -> None:
    text = "ModuleNotFoundError: No module named 'torch'\n"
    assert _ids(load_text(text))[0] == "torch_not_installed"
