"""Round 7 (issue #14), user side: the classes behind the held-out misses of batches 44 and 47, each read on
synthetic texts written for these tests, each with a counter-example that must not give the same verdict."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.apple_words import apple_said
from gpuassist.ingest.cpu_build_words import cuda_less_torch_in_words
from gpuassist.ingest.paste_causes import oom_held_by_others
from gpuassist.ingest.user_words import other_job_on_gpu
from gpuassist.knowledge.messages import lookup


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


# ------------------------------------------------------- Windows: torch's own DLLs failing to load (torch/__init__.py)


def test_error_loading_a_torch_dll_without_the_winerror_prefix_is_the_import_failure() -> None:
    text = "\n".join(
        [
            '  File "E:\\apps\\painter\\env\\Lib\\site-packages\\torch\\__init__.py", line 141, in <module>',
            "    raise err",
            'Error loading "E:\\apps\\painter\\env\\Lib\\site-packages\\torch\\lib\\shm.dll" '
            "or one of its dependencies.",
        ]
    )
    assert _first(text) == "torch_import_error"


def test_winerror_1114_on_c10_and_a_cut_quote_are_read() -> None:
    line = (
        "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. "
        'Error loading "C:\\Users\\kim\\miniconda3\\envs\\sd\\lib\\site-packages\\torch\\lib\\c10.dll'
    )
    assert any(r.key == "windows_dll_error_loading" for r in lookup(line))
    assert _first(line) == "torch_import_error"


def test_a_torch_dll_said_missing_in_words_is_a_likely_import_failure() -> None:
    # words, not the message: a likely cause (a warning), not a verdict.
    for said in (
        "caffe2_nvrtc.dll cannot be found when I start the notebook on Windows 11",
        "After the update it fails to load torch_cuda.dll, what is wrong?",
        "其他都正常, fbgemm.dll missing",
    ):
        first = load_text(said).findings[0]
        assert first.id == "torch_import_error" and first.severity is Severity.WARNING, said


def test_another_programs_dll_is_not_torchs() -> None:
    # counter-example: a game's DLL error loading message says nothing about torch.
    text = 'Error loading "C:\\Games\\engine\\bin\\physx_64.dll" or one of its dependencies. (Windows 10, GTX 1060)'
    assert "torch_import_error" not in _ids(text)
    assert not any(r.key.startswith("windows_") for r in lookup(text))


# --------------------------------------------- Linux/macOS: undefined symbols in torch's own _C extension module


def test_undefined_symbol_in_torch_c_extension_is_the_import_failure() -> None:
    text = "\n".join(
        [
            ">>> import torch",
            "ImportError: /opt/py/lib/python3.8/site-packages/torch/_C.cpython-38-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104impl8GPUTrace9haveStateE",
        ]
    )
    assert _first(text) == "torch_import_error"


def test_macos_dlopen_of_torch_c_symbol_not_found_is_the_import_failure() -> None:
    line = (
        "ImportError: dlopen(/Users/ana/env/lib/python3.11/site-packages/torch/_C.cpython-311-darwin.so, 0x0002): "
        "Symbol not found: __ZN2at4_ops5zeros4callE"
    )
    assert any(r.key == "macos_torch_dlopen" for r in lookup(line))


def test_another_packages_c_extension_is_not_torchs_own() -> None:
    # counter-example: an extension compiled against another torch is that package's problem, not torch's import.
    line = (
        "ImportError: /opt/py/lib/python3.8/site-packages/detectron2/_C.cpython-38-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN2at4_ops10zeros_like4callE"
    )
    assert not any(r.key == "torch_extension_undefined_symbol" for r in lookup(line))


# ------------------------------------------------------------- out of memory: "no other process" is not "others"


def _oom(prose: str) -> str:
    return "\n".join(
        [
            "RuntimeError: CUDA out of memory. Tried to allocate 256.00 MiB (GPU 0; 5.80 GiB total capacity; "
            "4.61 GiB already allocated; 120.31 MiB free; 4.70 GiB reserved in total by PyTorch)",
            prose,
        ]
    )


def test_user_ruling_out_other_processes_leaves_the_job_itself() -> None:
    for prose in (
        "Nothing else is running, there are no other programs using the card (RTX 2060 6GB).",
        "I am not running any other process on this GPU.",
    ):
        assert other_job_on_gpu(prose.splitlines(), []) is None, prose
        assert _first(_oom(prose)) == "cuda_out_of_memory", prose


def test_user_naming_another_process_is_still_read() -> None:
    # counter-example: the user says another job is on the card.
    prose = "My colleague's training job is running on the same GPU."
    assert other_job_on_gpu(prose.splitlines(), []) is not None


# ---------------------------------------------------------------- a Mac named by its chip or by the MPS device


def test_apple_chip_named_in_prose_makes_the_not_compiled_error_a_mac_one() -> None:
    text = "AssertionError: Torch not compiled with CUDA enabled\nI'm running this on my M2 Max, any idea?\n"
    assert _first(text) == "macos_no_cuda_use_mps"
    text = ">>> torch.backends.mps.is_available()\nTrue\n>>> torch.zeros(1).cuda()\n" + NOT_COMPILED
    assert _first(text) == "macos_no_cuda_use_mps"


NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled\n"


def test_code_naming_mps_as_a_fallback_is_not_a_mac() -> None:
    # counter-example: the script's device line names "mps" on any machine; nothing says this one is a Mac.
    text = 'device = "cuda" if torch.cuda.is_available() else "mps"\n' + NOT_COMPILED
    assert apple_said(text.splitlines()) is None
    assert _first(text) == "cpu_only_build"


def test_an_m2_drive_is_not_an_apple_chip() -> None:
    assert apple_said(["I keep the venv on my M2 SSD", "Windows 11, RTX 3060"]) is None


def test_nvidia_mps_and_other_m_names_are_not_a_mac() -> None:
    # counter-examples: NVIDIA's Multi-Process Service, a Quadro M-series card, a bare "m1" variable.
    assert apple_said(["nvidia-cuda-mps-control -d started", "torch.backends.mps.is_available() returns True"]) is None
    assert apple_said(["Quadro M1200 on Ubuntu", "learning rate for model m1 was 1e-3"]) is None
    text = "AssertionError: Torch not compiled with CUDA enabled\nUbuntu 22.04 box with a Quadro M1200\n"
    assert _first(text) != "macos_no_cuda_use_mps"


# ------------------------------------------------------------------ a torch without CUDA described by its lack


def test_installer_gave_torch_without_cuda_in_words() -> None:
    for line in (
        "the requirements file pulled in torch 2.5.1 without CUDA support, so everything runs slowly",
        "It seems torch was installed without GPU support by the setup script.",
        "pip installed a non-CUDA torch for me",
        "The openai-whisper package installs torch without the CUDA build.",
        "the installed pytorch is cpu only",
        "my torch is not CUDA-enabled after running the setup",
        "the torch version it installed doesn't support CUDA",
    ):
        found = cuda_less_torch_in_words([line])
        assert found is not None and found.id == "cpu_only_build", line


def test_torch_without_cuda_on_purpose_or_not_about_the_install_is_not_read() -> None:
    # counter-examples: the CPU build asked for, and torch running without a GPU on a laptop (no install said).
    assert cuda_less_torch_in_words(["pip install torch --index-url https://download.pytorch.org/whl/cpu"]) is None
    assert cuda_less_torch_in_words(["torch works without CUDA on my laptop, which is fine"]) is None
    # pip's CUDA wheels bring their own CUDA: installing torch without the toolkit says nothing about the build.
    assert cuda_less_torch_in_words(["I installed torch without the CUDA toolkit, only the driver"]) is None
    for said in (
        "I installed torch 2.3.1+cu121, not the CPU version",  # denied
        "Maybe the CPU version of torch got installed?",  # a guess
        "If torch is CPU-only, reinstall it from the cu124 index",  # an instruction
        "I set up torch on a mini PC without GPU",  # the machine lacks the GPU, not the build
        "torch doesn't support CUDA 12.8 yet",  # a version question
    ):
        assert cuda_less_torch_in_words([said]) is None, said


# ------------------------------------------------- the installer of one Python, the interpreter of another


def test_conda_of_one_install_and_python_of_another_is_the_wrong_interpreter() -> None:
    text = "\n".join(
        [
            "$ python train.py",
            "ModuleNotFoundError: No module named 'torch'",
            "$ which python",
            "/usr/local/bin/python3",
            "$ which conda",
            "/opt/miniforge3/bin/conda",
        ]
    )
    assert _first(text) == "wrong_interpreter_or_kernel"


def test_pip_of_another_windows_python_is_the_wrong_interpreter() -> None:
    text = "\n".join(
        [
            "ModuleNotFoundError: No module named 'torch'",
            "where python",
            "C:\\Users\\lee\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe",
            "where pip",
            "D:\\Python311\\Scripts\\pip.exe",
        ]
    )
    assert _first(text) == "wrong_interpreter_or_kernel"


def test_a_conda_env_under_conda_s_own_root_is_the_same_family() -> None:
    # counter-example: the interpreter is an env of that conda; "No module named torch" is torch missing there.
    text = "\n".join(
        [
            "ModuleNotFoundError: No module named 'torch'",
            "/home/kai/miniconda3/envs/vision/bin/python",
            "/home/kai/miniconda3/bin/conda",
        ]
    )
    assert "wrong_interpreter_or_kernel" not in _ids(text)


def test_old_cached_form_on_a_4gb_card_with_a_desktop_is_the_job() -> None:
    # torch 1.x's "... cached" form: 3.95 GiB card, 2.2 GiB allocated, 1.6 GiB outside the allocator (the desktop's
    # framebuffer and this process's CUDA context on a laptop GPU): less than half the card, so not others.
    line = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 3.95 GiB total capacity; "
        "2.20 GiB already allocated; 50.00 MiB free; 100.00 MiB cached)"
    )
    assert not oom_held_by_others([line])
    assert _first(line) == "cuda_out_of_memory"


def test_pip_version_of_another_python_is_the_wrong_interpreter() -> None:
    text = "\n".join(
        [
            "> pip --version",
            "pip 24.0 from C:\\Users\\ra\\miniforge3\\envs\\ml\\lib\\site-packages\\pip (python 3.11)",
            "> where python",
            "C:\\Program Files\\Python312\\python.exe",
            "> python app.py",
            "ModuleNotFoundError: No module named 'torch'",
        ]
    )
    assert _first(text) == "wrong_interpreter_or_kernel"


def test_pip_version_of_the_same_venv_is_not_another_python() -> None:
    # counter-example: pip and python are the same venv's; torch is simply not installed there.
    text = "\n".join(
        [
            "pip 24.0 from /srv/app/.venv/lib/python3.11/site-packages/pip (python 3.11)",
            "/srv/app/.venv/bin/python",
            "ModuleNotFoundError: No module named 'torch'",
        ]
    )
    assert "wrong_interpreter_or_kernel" not in _ids(text)


def test_the_dll_with_its_dependencies_tail_alone_is_read() -> None:
    assert any(r.key == "windows_dll_error_loading" for r in lookup("torch: asmjit.dll or one of its dependencies"))
    assert not lookup("launcher: physx_64.dll or one of its dependencies")


def test_pip_says_torch_is_in_another_python_than_the_traceback_runs() -> None:
    text = "\n".join(
        [
            "C:\\> pip install torch",
            "Requirement already satisfied: torch in c:\\users\\mo\\anaconda3\\lib\\site-packages (2.2.1)",
            "C:\\> python run.py",
            "Traceback (most recent call last):",
            '  File "C:\\Users\\mo\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\lib_x\\a.py", '
            "line 3, in <module>",
            "    import torch",
            "ModuleNotFoundError: No module named 'torch'",
        ]
    )
    assert _first(text) == "wrong_interpreter_or_kernel"


def test_debian_local_dist_packages_belong_to_the_system_python() -> None:
    # counter-example: /usr/local/lib/python3.X/dist-packages is on /usr/bin/python3's own path, and the user site
    # is on every interpreter's path of its version: neither is another Python.
    for site in ("/usr/local/lib/python3.11/dist-packages", "/home/jo/.local/lib/python3.11/site-packages"):
        text = "\n".join(
            [
                f"Requirement already satisfied: torch in {site} (2.3.0)",
                "/usr/bin/python3",
                "ModuleNotFoundError: No module named 'torch'",
            ]
        )
        assert "wrong_interpreter_or_kernel" not in _ids(text), site


def test_what_only_the_mps_backend_prints_is_a_mac() -> None:
    text = (
        "NotImplementedError: The operator 'aten::_fft_r2c' is not currently implemented for the MPS device.\n"
        + NOT_COMPILED
    )
    assert _first(text) == "macos_no_cuda_use_mps"
    assert apple_said(["tensor([0.5000, 0.2500], device='mps:0')"]) is not None
    # counter-example: a CUDA tensor's repr and NVIDIA's MPS daemon say nothing about a Mac.
    assert apple_said(["tensor([0.5000], device='cuda:0')", "nvidia-cuda-mps-control -d"]) is None


def test_an_older_library_version_required_by_torch_is_the_import_failure() -> None:
    line = (
        "ImportError: /usr/lib64/libgomp.so.1: version `GOMP_4.5' not found "
        "(required by /srv/env/lib/python3.9/site-packages/torch/lib/libtorch_cpu.so)"
    )
    assert _first(">>> import torch\n" + line) == "torch_import_error"
    # counter-example: the same loader message for another package's library is not torch's import.
    other = line.replace("torch/lib/libtorch_cpu.so", "sklearn/utils/_openmp_helpers.so")
    assert not any(r.key == "version_not_found_for_torch" for r in lookup(other))
    # with the older library under LD_LIBRARY_PATH, the path stays the cause.
    text = "export LD_LIBRARY_PATH=/opt/gcc7/lib64\n>>> import torch\n" + line.replace("/usr/lib64", "/opt/gcc7/lib64")
    assert _first(text) == "ld_library_path_shadowing"


def test_a_denial_in_chinese_is_read_too() -> None:
    assert other_job_on_gpu(["没有其他程序在跑, 只有这一个训练"], []) is None
    assert other_job_on_gpu(["其他程序在跑, 占了一半显存"], []) is not None
