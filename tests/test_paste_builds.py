"""Which torch build and platform a paste shows, in every listing that states it (issue #14, round 4: wheels, builds
and platforms). The texts are synthetic, written in each tool's own layout (pip show, a one-line check's printout,
uv.lock/poetry.lock, the REPL, uv's and Poetry's resolver reports, a Mac's own words); each mechanism has a
counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.build_facts import build_facts, lockfile_facts, printed_check_facts
from gpuassist.ingest.text import clean_lines


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ------------------------------------------------------------------ the one-line check the catalogue asks for

CHECK_CPU = """\
$ python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"
2.3.0 None False
"""
CHECK_CUDA = """\
$ python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"
2.3.0 12.1 False
"""


def test_printed_check_maps_each_word_to_its_expression() -> None:
    sources: dict[str, tuple[int, str]] = {}
    facts = printed_check_facts(clean_lines(CHECK_CPU), sources)
    assert facts == {"torch.version": "2.3.0", "torch.cuda_build": None, "cuda.available": False}
    assert sources["torch.cuda_build"][0] == 1


def test_printed_check_with_none_is_a_cpu_build() -> None:
    assert _ids(CHECK_CPU)[:1] == ["cpu_only_build"]


def test_printed_check_with_a_cuda_version_is_not_a_cpu_build() -> None:
    assert "cpu_only_build" not in _ids(CHECK_CUDA)


def test_printed_check_ignores_output_that_does_not_fit() -> None:
    text = "$ python -c 'import torch; print(torch.__version__, torch.version.cuda)'\nTraceback (most recent call"
    assert printed_check_facts(clean_lines(text), {}) == {}


# ----------------------------------------------------------------------------------------------------- pip show


def test_pip_show_plus_cpu_is_a_cpu_build() -> None:
    text = "$ pip show torch\nName: torch\nVersion: 2.3.1+cpu\nSummary: Tensors and Dynamic neural networks\n"
    assert _ids(text)[:1] == ["cpu_only_build"]


def test_pip_show_of_another_package_states_nothing() -> None:
    text = "$ pip show torchvision\nName: torchvision\nVersion: 0.18.1+cpu\n"
    assert "torch.version" not in build_facts(clean_lines(text), {})


# ---------------------------------------------------------------------------------------------------- lockfiles

UV_LOCK_CPU = """\
[[package]]
name = "torch"
version = "2.5.1+cpu"
source = { registry = "https://download.pytorch.org/whl/cpu" }
"""
POETRY_LOCK_CPU_INDEX = """\
[[package]]
name = "torch"
version = "2.4.0"
description = "Tensors and Dynamic neural networks in Python with strong GPU acceleration"

[package.source]
type = "legacy"
url = "https://download.pytorch.org/whl/cpu"
"""
UV_LOCK_SPLIT = """\
[[package]]
name = "torch"
version = "2.5.1+cpu"
source = { registry = "https://download.pytorch.org/whl/cpu" }

[[package]]
name = "torch"
version = "2.5.1+cu124"
source = { registry = "https://download.pytorch.org/whl/cu124" }
"""


def test_lockfile_with_only_cpu_torch_is_a_cpu_build() -> None:
    assert lockfile_facts(clean_lines(UV_LOCK_CPU), {}) == {"torch.version": "2.5.1+cpu", "torch.cuda_build": None}
    assert _ids(UV_LOCK_CPU)[:1] == ["cpu_only_build"]


def test_poetry_lock_source_on_the_cpu_index_is_a_cpu_build() -> None:
    assert lockfile_facts(clean_lines(POETRY_LOCK_CPU_INDEX), {})["torch.cuda_build"] is None


def test_lockfile_with_a_cpu_and_a_cuda_torch_states_nothing() -> None:
    # uv resolves per platform: which of the two this machine got is not in the lock.
    assert lockfile_facts(clean_lines(UV_LOCK_SPLIT), {}) == {}


# ------------------------------------------------------------------------------------ the REPL without a version


def test_is_built_false_is_a_cpu_build() -> None:
    assert _ids(">>> import torch\n>>> torch.backends.cuda.is_built()\nFalse\n")[:1] == ["cpu_only_build"]


def test_version_cuda_none_without_a_version_is_a_cpu_build() -> None:
    assert _ids(">>> print(torch.version.cuda)\nNone\n>>> torch.cuda.is_available()\nFalse\n")[:1] == ["cpu_only_build"]


def test_is_built_true_claims_no_cpu_build() -> None:
    assert "cpu_only_build" not in _ids(">>> torch.backends.cuda.is_built()\nTrue\n")


def test_collect_env_na_is_not_a_stated_cpu_build() -> None:
    # collect_env prints N/A for everything when torch does not import: not a CPU build.
    text = "PyTorch version: N/A\nIs debug build: N/A\nCUDA used to build PyTorch: N/A\nIs CUDA available: N/A\n"
    assert "cpu_only_build" not in _ids(text)


def test_device_capability_is_checked_against_the_arch_list() -> None:
    text = (
        ">>> torch.cuda.get_arch_list()\n['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']\n"
        ">>> torch.cuda.get_device_capability()\n(12, 0)\n"
    )
    assert _ids(text)[:1] == ["gpu_arch_too_new_for_build"]


def test_device_capability_inside_the_arch_list_is_fine() -> None:
    text = (
        ">>> torch.cuda.get_arch_list()\n['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']\n"
        ">>> torch.cuda.get_device_capability()\n(8, 6)\n"
    )
    ids = _ids(text)
    assert "gpu_arch_too_new_for_build" not in ids and "gpu_arch_dropped_from_build" not in ids


# ---------------------------------------------------------------------------- resolvers finding no wheel at all


@pytest.mark.parametrize(
    "text",
    [
        # uv: the release has no wheel for this Python (a too new Python)
        "  × No solution found when resolving dependencies:\n  ╰─▶ Because torch==2.2.2 has no wheels with a matching "
        "Python ABI tag (e.g., `cp313`) and you require torch==2.2.2, we can conclude that your requirements are "
        "unsatisfiable.\n",
        # uv: the variant asked for does not exist on the index
        "  ╰─▶ Because there is no version of torch==2.4.0+cu118 and you require torch==2.4.0+cu118, we can conclude "
        "that your requirements are unsatisfiable.\n",
        # Poetry's installer: no wheel of the locked version fits this environment
        "  - Installing torch (2.1.0+cu121)\n\n  RuntimeError\n\n  Unable to find installation candidates for torch "
        "(2.1.0+cu121)\n",
    ],
)
def test_resolver_reports_are_no_wheel(text: str) -> None:
    assert _ids(text)[:1] == ["no_wheel_for_platform"]


def test_resolver_report_about_another_package_is_not_torch_without_a_wheel() -> None:
    text = (
        "  ╰─▶ Because box2d==2.3.10 has no wheels with a matching Python ABI tag (e.g., `cp314`) and you require "
        "box2d==2.3.10, we can conclude that your requirements are unsatisfiable.\n"
    )
    assert "no_wheel_for_platform" not in _ids(text)


# ------------------------------------------------------------------------------------- a Mac, in its own words


@pytest.mark.parametrize(
    "text",
    [
        "On my MacBook Air I ran the notebook's check and torch.cuda.is_available() gives 'cpu' as the device.\n",
        "I'm on a Mac (M2). The script says CUDA is not available and everything runs slowly.\n",
        "/Users/ana/miniforge3/envs/sd/lib/python3.10/site-packages/torch/amp/autocast_mode.py:250: UserWarning: "
        "User provided device_type of 'cuda', but CUDA is not available. Disabling\n",
    ],
)
def test_a_mac_without_cuda_is_pointed_to_mps(text: str) -> None:
    assert _ids(text)[:1] == ["macos_no_cuda_use_mps"]


def test_a_mac_that_uses_mps_fine_claims_nothing() -> None:
    text = "On my M2 MacBook training runs on mps:\n>>> torch.backends.mps.is_available()\nTrue\nepoch 1 loss 0.53\n"
    assert _ids(text) == []


def test_a_mac_used_only_to_reach_a_linux_server_is_not_a_mac_problem() -> None:
    text = "I ssh from my Mac into our Ubuntu server with two RTX 3090s; there CUDA is not available in torch.\n"
    assert "macos_no_cuda_use_mps" not in _ids(text)


# ------------------------------------------------------------------------- install requests that fix the build


@pytest.mark.parametrize(
    "text",
    [
        "name: myenv\nchannels:\n  - pytorch\ndependencies:\n  - python=3.10\n  - pytorch=2.0.1\n  - cpuonly\n",
        "$ conda install pytorch torchvision torchaudio cpuonly -c pytorch\n",
        "--extra-index-url https://download.pytorch.org/whl/cpu\ntorch==2.0.1\n",
    ],
)
def test_a_cpu_install_request_is_a_cpu_build(text: str) -> None:
    assert _ids(text)[:1] == ["cpu_only_build"]


def test_a_cuda_install_request_is_not_a_cpu_build() -> None:
    text = "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.1.0\n  - cpuonly-helper-docs\n"
    assert "cpu_only_build" not in _ids(text)


def test_pip_show_finding_no_torch_is_torch_not_installed() -> None:
    assert _ids("$ pip show torch\nWARNING: Package(s) not found: torch\n")[:1] == ["torch_not_installed"]
    assert "torch_not_installed" not in _ids("$ pip show torchaudio\nWARNING: Package(s) not found: torchaudio\n")


def test_pytorch_configure_summary_without_cuda_is_a_source_build_without_it() -> None:
    text = "-- ******** Summary ********\n--   USE_CUDA              : OFF\n--   USE_CUDNN             : OFF\n"
    assert _ids(text)[:1] == ["source_build_without_cuda"]
    assert "source_build_without_cuda" not in _ids("--   USE_CUDA              : ON\n")


# ------------------------------------------------------------------------------------ Windows and PyPI's wheel


@pytest.mark.parametrize(
    "installed",
    ["Successfully installed torch-2.2.0", " + torch==2.2.0", "  - Installing torch (2.2.0)"],
)
def test_an_untagged_torch_installed_on_windows_is_the_pypi_cpu_build(installed: str) -> None:
    text = f"PS C:\\Users\\me\\proj> poetry install\n{installed}\nPS C:\\Users\\me\\proj> python check.py\nFalse\n"
    assert _ids(text)[:1] == ["cpu_only_build"]


def test_a_tagged_cuda_torch_installed_on_windows_is_not_a_cpu_build() -> None:
    text = "PS C:\\Users\\me\\proj> pip install torch\nSuccessfully installed torch-2.2.0+cu121\n"
    assert "cpu_only_build" not in _ids(text)


def test_an_untagged_torch_on_linux_is_pypis_cuda_build() -> None:
    assert "cpu_only_build" not in _ids("$ pip install torch\nSuccessfully installed torch-2.2.0\n")


def test_automatic1111s_gpu_check_failing_on_windows_suggests_the_cpu_build() -> None:
    text = (
        '  File "C:\\sd\\webui\\modules\\launch_utils.py", line 386, in prepare_environment\n'
        "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
        "disable this check\n"
    )
    assert _ids(text)[:1] == ["cpu_only_build"]


# --------------------------------------------------------------------------------------------- two torch copies


def test_the_imported_torch_differing_from_pips_is_a_shadowing_copy() -> None:
    text = (
        '(venv) u@box:~/proj$ python -c "import torch; print(torch.__version__)"\n1.13.1+cu117\n'
        "(venv) u@box:~/proj$ pip list | grep torch\ntorch                    2.3.1+cu121\n"
    )
    assert _ids(text)[:1] == ["stale_or_shadowed_torch"]


def test_collect_env_import_and_pip_section_agreeing_is_not_shadowing() -> None:
    text = "PyTorch version: 2.3.1+cu121\nIs CUDA available: True\n[pip3] torch==2.3.1+cu121\n"
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_a_source_build_rebuilt_in_place_is_not_shadowing() -> None:
    text = "PyTorch version: 1.7.0a0+9ddd3df\nIs CUDA available: True\n[pip3] torch==1.7.0a0+a9603c7\n"
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_versions_before_and_after_an_install_are_not_shadowing() -> None:
    text = (
        ">>> torch.__version__\n'1.13.1+cpu'\n$ pip install -U torch\nSuccessfully installed torch-2.3.1\n"
        "$ pip list\ntorch 2.3.1\n"
    )
    assert "stale_or_shadowed_torch" not in _ids(text)


# ------------------------------------------------------------------------------------------ Rosetta from conda


def test_an_x86_64_conda_on_apple_silicon_is_rosetta() -> None:
    text = "$ conda info\n       platform : osx-64\n$ sysctl -n machdep.cpu.brand_string\nApple M1 Pro\n"
    assert _ids(text)[:1] == ["macos_rosetta_x86_python"]


def test_an_arm64_conda_on_apple_silicon_is_not_rosetta() -> None:
    text = "$ conda info\n       platform : osx-arm64\n$ sysctl -n machdep.cpu.brand_string\nApple M1 Pro\n"
    assert "macos_rosetta_x86_python" not in _ids(text)


# ------------------------------------------------------------------- ordering: a Kepler GPU cannot get a newer driver

KEPLER_CU121 = """\
PyTorch version: 2.2.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
OS: Ubuntu 22.04.4 LTS (x86_64)
Is CUDA available: True
GPU models and configuration:
GPU 0: NVIDIA GeForce {gpu}
Nvidia driver version: 470.223.02
"""


def test_a_kepler_gpu_puts_the_dropped_arch_before_the_driver() -> None:
    # 470 is Kepler's last driver branch: no driver for CUDA 12 exists for it, the build is what must change.
    ids = _ids(KEPLER_CU121.format(gpu="GTX 760"))
    assert ids[:2] == ["gpu_arch_dropped_from_build", "driver_too_old"]


def test_a_newer_gpu_with_an_old_driver_keeps_the_driver_first() -> None:
    ids = _ids(KEPLER_CU121.format(gpu="RTX 3060"))
    assert ids[:1] == ["driver_too_old"] and "gpu_arch_dropped_from_build" not in ids


UV_MAC_X86 = (
    "Using Python 3.12.9 environment at: /Users/me/.venv-{tool}\n"
    "  ╰─▶ Because torch==2.11.0 has no wheels with a matching platform tag (e.g., `macosx_26_0_x86_64`) and you "
    "require torch==2.11.0, we can conclude that your requirements are unsatisfiable.\n"
)


def test_apple_silicon_only_software_with_an_x86_64_python_is_rosetta() -> None:
    # MLX and the tools built on it run only on Apple silicon; uv's tag is the running (x86_64) interpreter's.
    assert _ids(UV_MAC_X86.format(tool="mlx-lm"))[:1] == ["macos_rosetta_x86_python"]


def test_an_x86_64_python_on_a_mac_of_unknown_chip_is_not_rosetta() -> None:
    # An Intel Mac prints the same tag: without Apple silicon in the text, Rosetta is not claimed.
    assert "macos_rosetta_x86_python" not in _ids(UV_MAC_X86.format(tool="sd"))


def test_a_mellanox_driver_is_not_mlx() -> None:
    text = UV_MAC_X86.format(tool="sd") + "[   12.3] mlx5_core 0000:41:00.0: firmware version: 16.35.2000\n"
    assert "macos_rosetta_x86_python" not in _ids(text)


# -------------------------------------------------------------------------- torch.__config__.show()'s build settings

CONFIG_SHOW = """\
>>> print(torch.__config__.show())
PyTorch built with:
  - GCC 9.3
  - CPU capability usage: AVX2
  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, {cuda}TORCH_VERSION=2.1.0, USE_CUDA={use}, USE_CUDNN={use},
"""


def test_config_show_without_cuda_is_a_cpu_build() -> None:
    assert _ids(CONFIG_SHOW.format(cuda="", use="OFF"))[:1] == ["cpu_only_build"]
    assert _ids(CONFIG_SHOW.format(cuda="", use="0"))[:1] == ["cpu_only_build"]


def test_config_show_with_cuda_states_the_cuda_build() -> None:
    text = CONFIG_SHOW.format(cuda="CUDA_VERSION=11.8, ", use="ON")
    assert build_facts(clean_lines(text), {})["torch.cuda_build"] == "11.8"
    assert "cpu_only_build" not in _ids(text)


@pytest.mark.parametrize(
    "line",
    [
        "nvidia geforce rtx 5090 with cuda capabilities sm_120 is not compatible with the current Pytorch installation",
        "CUDA error: RTX 50xx sm_120 is not compatible with the current PyTorch installation",
        "VIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
    ],
)
def test_torchs_capability_warning_in_any_spelling(line: str) -> None:
    # torch/cuda/__init__.py's warning, retyped: lower case, "capabilities", cut at the start, only the sm named.
    assert _ids(line + "\n")[:1] == ["gpu_arch_too_new_for_build"]


def test_an_sm_named_without_the_warning_claims_no_arch_problem() -> None:
    text = "torch 2.7.0+cu128 on an RTX 5090\nptxas info    : Compiling entry function 'kernel' for 'sm_120'\n"
    assert "gpu_arch_too_new_for_build" not in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        "Mac M1 doesn't have CUDA?\nAssertionError: Torch not compiled with CUDA enabled\n",
        "我的电脑是M2芯片的笔记本，运行报错 AssertionError: Torch not compiled with CUDA enabled\n",
        "Graphics/Displays:\n    Apple M3 Max:\n      Chipset Model: Apple M3 Max\n"
        "AssertionError: Torch not compiled with CUDA enabled\n",
    ],
)
def test_the_mac_named_before_its_chip_or_in_chinese(text: str) -> None:
    assert _ids(text)[:1] == ["macos_no_cuda_use_mps"]


def test_a_mac_address_is_not_a_mac() -> None:
    text = "The MAC address m1 changed on eth0.\nAssertionError: Torch not compiled with CUDA enabled\n"
    assert _ids(text)[:1] == ["cpu_only_build"]


def test_a_cpu_install_on_a_machine_said_to_have_no_gpu_is_no_cause() -> None:
    text = (
        "This is a cpu-only server:\n  pip install torch --index-url https://download.pytorch.org/whl/cpu\n"
        "Then pytest fails: AssertionError: tensor mismatch in test_model.py\n"
    )
    assert "cpu_only_build" not in _ids(text)


def test_torch_loads_own_cpu_only_machine_hint_is_not_the_user_saying_so() -> None:
    text = (
        "conda install pytorch torchvision cpuonly -c pytorch\n"
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
        "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu')\n"
    )
    assert _ids(text)[:1] == ["cpu_only_build"]


WINDOWS_ENV_TAIL = """\
Python platform: Windows-10-10.0.22631-SP0
Is CUDA available: False
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3070
Nvidia driver version: 546.33
Versions of relevant libraries:
[pip3] torch==2.1.2
{conda}"""


def test_a_windows_collect_env_tail_listing_an_untagged_pip_torch_is_the_pypi_cpu_build() -> None:
    assert _ids(WINDOWS_ENV_TAIL.format(conda="[conda] Could not collect\n"))[:1] == ["cpu_only_build"]


def test_an_untagged_torch_that_conda_installed_on_windows_is_not_read_as_pypis() -> None:
    # conda's CUDA builds carry no local tag either; conda's own listing says which build it is.
    text = WINDOWS_ENV_TAIL.format(
        conda="[conda] pytorch                   2.1.2           py3.11_cuda12.1_cudnn8_0    pytorch\n"
    )
    assert "cpu_only_build" not in _ids(text)


def test_pytorchs_cmake_warning_of_a_build_without_cuda() -> None:
    text = (
        "CMake Warning at cmake/Dependencies.cmake (message):\n"
        "  Not compiling with CUDA.  Suppress this warning with -DUSE_CUDA=OFF.\n"
    )
    assert _ids(text)[:1] == ["source_build_without_cuda"]


# ------------------------------------------------------ "no kernel image" where torch's own arch list covers the GPU

NO_KERNEL_WITH_ARCH_LIST = """\
>>> torch.__version__
'2.7.0+cu128'
>>> torch.cuda.get_device_name(0)
'NVIDIA GeForce RTX 5090'
>>> torch.cuda.get_arch_list()
[{archs}]
>>> x = torch.randn(2, device='cuda')
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""


def test_no_kernel_image_with_the_gpu_in_torchs_arch_list_is_not_torchs_arch() -> None:
    ids = _ids(NO_KERNEL_WITH_ARCH_LIST.format(archs="'sm_75', 'sm_80', 'sm_90', 'sm_100', 'sm_120', 'compute_120'"))
    assert not {"gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build", "source_build_without_cuda"} & set(ids)


def test_no_kernel_image_with_the_gpu_missing_from_the_arch_list_is_torchs_arch() -> None:
    ids = _ids(NO_KERNEL_WITH_ARCH_LIST.format(archs="'sm_75', 'sm_80', 'sm_86', 'sm_90'"))
    assert ids[:1] == ["gpu_arch_too_new_for_build"]


@pytest.mark.parametrize(
    "command",
    ["pip install torch torchvision torchaudio", "python -m pip install torch", "uv add torch", "poetry add torch"],
)
def test_a_plain_torch_install_on_windows_with_the_gpu_unused_suggests_pypis_cpu_build(command: str) -> None:
    text = f"PS C:\\dev\\proj> {command}\nOn win11 it is not using my GPU (RTX 4070).\n"
    assert _ids(text)[:1] == ["cpu_only_build"]


@pytest.mark.parametrize(
    "command",
    [
        "pip install torch --index-url https://download.pytorch.org/whl/cu121",
        "pip install -r requirements.txt torch",
        "pip install torch==2.1.0+cu121 -f https://download.pytorch.org/whl/torch_stable.html",
    ],
)
def test_a_torch_install_from_another_index_on_windows_is_not_read_as_pypis(command: str) -> None:
    text = f"PS C:\\dev\\proj> {command}\nOn win11 it is not using my GPU (RTX 4070).\n"
    assert "cpu_only_build" not in _ids(text)


def test_a_plain_install_on_linux_is_not_a_cpu_build() -> None:
    assert "cpu_only_build" not in _ids("$ pip install torch\nOn Ubuntu 22.04 it is not using my GPU (RTX 4070).\n")


@pytest.mark.parametrize(
    "text",
    [
        "ERROR: Package 'torch' requires a different Python: 3.7.9 not in '>=3.8.0'\n",
        "  ╰─▶ Because the current Python version (3.13.1) does not satisfy Python>=3.8,<3.13 and torch==2.2.0 depends "
        "on Python>=3.8,<3.13, we can conclude that torch==2.2.0 cannot be used.\n",
        "UnsatisfiableError: The following specifications were found\nto be incompatible with the existing python "
        "installation in your environment:\n\nSpecifications:\n\n  - pytorch -> python[version='>=3.6,<3.7.0a0|>=3.7,"
        "<3.8.0a0']\n\nYour python: python=3.10\n",
    ],
)
def test_torch_excluding_this_python_is_no_wheel(text: str) -> None:
    assert _ids(text)[:1] == ["no_wheel_for_platform"]


def test_another_package_excluding_this_python_is_not_torch_without_a_wheel() -> None:
    text = "ERROR: Package 'hermes-agent' requires a different Python: 3.10.12 not in '>=3.11'\n(next to torch)\n"
    assert "no_wheel_for_platform" not in _ids(text)


NOT_COMPILED_TRACE = (
    '  File "D:\\other\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py", line 310, in _lazy_init\n'
    '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
    "AssertionError: Torch not compiled with CUDA enabled\n"
)


def test_a_listed_cuda_torch_with_torch_saying_it_has_no_cuda_is_another_copy() -> None:
    text = "(venv) D:\\proj> pip list\ntorch                    2.5.1+cu124\n" + NOT_COMPILED_TRACE
    assert _ids(text)[:1] == ["stale_or_shadowed_torch"]


def test_a_cuda_torch_installed_after_the_error_is_not_another_copy() -> None:
    text = NOT_COMPILED_TRACE + "D:\\proj> pip install torch --index-url https://download.pytorch.org/whl/cu124\n"
    text += "Successfully installed torch-2.5.1+cu124\n"
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_a_listed_cpu_torch_with_the_same_message_is_the_cpu_build() -> None:
    text = "(venv) D:\\proj> pip list\ntorch                    2.5.1+cpu\n" + NOT_COMPILED_TRACE
    assert _ids(text)[:1] == ["cpu_only_build"]


# ------------------------------------------------------ torch 2.8+'s capability warning: "compute capability (CC)"

CC_WARNING = """\
UserWarning: Found GPU0 {gpu} which is of compute capability (CC) {cc}.
The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:
{built}
Please follow the instructions at https://pytorch.org/get-started/locally/ to install a PyTorch release that supports \
one of these CUDA versions: 12.6
"""
BUILT_CU128 = "\n".join(
    f"- {cc} which supports hardware CC >={cc},<{int(cc.split('.')[0]) + 1}.0"
    for cc in ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")
)
BUILT_CU126 = "\n".join(
    f"- {cc} which supports hardware CC >={cc},<{int(cc.split('.')[0]) + 1}.0"
    for cc in ("5.0", "6.0", "7.0", "8.0", "8.6", "9.0")
)


def test_the_cc_warning_for_an_old_gpu_is_a_dropped_arch() -> None:
    text = CC_WARNING.format(gpu="NVIDIA GeForce GTX 1080 Ti", cc="6.1", built=BUILT_CU128)
    facts = build_facts(clean_lines(text), {})
    assert facts["torch.arch_list"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert _ids(text)[:1] == ["gpu_arch_dropped_from_build"]


def test_the_cc_warning_for_a_new_gpu_is_an_arch_too_new() -> None:
    text = CC_WARNING.format(gpu="NVIDIA GeForce RTX 5090", cc="12.0", built=BUILT_CU126)
    assert _ids(text)[:1] == ["gpu_arch_too_new_for_build"]


@pytest.mark.parametrize(
    "words",
    [
        "I upgraded torch with pip but it keeps loading the old version:",
        "Reinstalled pytorch twice, the version did not change:",
    ],
)
def test_a_reinstall_that_does_not_change_the_imported_version_is_another_copy(words: str) -> None:
    text = f"{words}\n>>> import torch\n>>> torch.__version__\n'1.8.0'\n"
    assert _ids(text)[:1] == ["stale_or_shadowed_torch"]


def test_a_reinstall_that_still_gives_the_same_error_is_not_another_copy() -> None:
    text = "I reinstalled torch but still get the same error:\n>>> torch.__version__\n'2.1.0+cpu'\n"
    assert "stale_or_shadowed_torch" not in _ids(text)
