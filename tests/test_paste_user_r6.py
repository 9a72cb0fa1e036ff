"""The general mechanisms behind the user-side held-out misses of batch 40 (round 6): each one reads a class of
texts, tested on synthetic texts unlike the corpus ones, each with a counter-example that must not give the same
verdict."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.paste_causes import _site_packages, oom_held_by_others
from gpuassist.report.model import Report


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _first(text: str) -> str | None:
    report = load_text(text)
    return report.findings[0].id if report.findings else None


# ------------------------------------------- out of memory on a small card: the CUDA context is not "others"


def _oom(total: str, allocated: str, free: str, cached: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        '  File "fit.py", line 12, in <module>',
        "    y = net(x.cuda())",
        f"RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; {total} total capacity; "
        f"{allocated} already allocated; {free} free; {cached} cached)",
    ]


def test_small_card_context_is_not_memory_held_by_others() -> None:
    # 2 GiB card: 0.9 GiB is neither allocated, cached nor free, which is what one process's own CUDA context
    # (driver state, loaded kernels, cuBLAS workspace) takes: the job is too large, nobody else is involved.
    assert not oom_held_by_others(_oom("2.00 GiB", "0.95 GiB", "40.00 MiB", "0.10 GiB"))
    assert _first("\n".join(_oom("2.00 GiB", "0.95 GiB", "40.00 MiB", "0.10 GiB"))) == "cuda_out_of_memory"


def test_large_card_mostly_held_outside_the_process_is_others() -> None:
    # counter-example: 24 GiB card, this process holds 1.5 GiB and 20 GiB are outside it: another process.
    lines = _oom("23.65 GiB", "1.20 GiB", "60.00 MiB", "0.30 GiB")
    assert oom_held_by_others(lines)
    assert _first("\n".join(lines)) == "gpu_memory_held_by_others"


# ---------------------------------------------------------------- a user site-packages path written with "~"


def test_home_tilde_is_part_of_a_site_packages_path() -> None:
    line = "'~/.local/lib/python3.8/site-packages/numpy/__init__.py'"
    assert _site_packages(line) == ["~/.local/lib/python3.8/site-packages"]


def test_torch_and_its_neighbours_in_one_user_site_are_not_shadowing() -> None:
    # torch and another package both in ~/.local: one environment, nothing shadows anything.
    text = "\n".join(
        [
            ">>> import torch",
            "Traceback (most recent call last):",
            '  File "<stdin>", line 1, in <module>',
            '  File "~/.local/lib/python3.8/site-packages/torch/__init__.py", line 190, in <module>',
            "    from torch._C import *",
            "ImportError: ~/.local/lib/python3.8/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
            "_ZN3c104impl8GPUTraceE",
            ">>> import numpy; numpy.__file__",
            "'~/.local/lib/python3.8/site-packages/numpy/__init__.py'",
        ]
    )
    ids = _ids(load_text(text))
    assert "stale_or_shadowed_torch" not in ids
    assert ids[0] == "torch_import_error"


def test_user_site_torch_beside_a_conda_env_is_still_shadowing() -> None:
    # counter-example: torch from ~/.local while the program's packages come from a conda env.
    text = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/opt/conda/envs/work/lib/python3.8/site-packages/mylib/run.py", line 3, in <module>',
            "    import torch",
            '  File "~/.local/lib/python3.8/site-packages/torch/__init__.py", line 190, in <module>',
            "    from torch._C import *",
            "ImportError: ~/.local/lib/python3.8/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
            "_ZN3c104impl8GPUTraceE",
        ]
    )
    assert "stale_or_shadowed_torch" in _ids(load_text(text))


# ----------------------------------- conda's pytorch with a versioned CUDA symbol missing: no path to blame


def _conda_undefined(install: str) -> str:
    return "\n".join(
        [
            install,
            ">>> import torch",
            "Traceback (most recent call last):",
            '  File "/home/u/mamba/envs/t/lib/python3.9/site-packages/torch/__init__.py", line 218, in <module>',
            "    from torch._C import *",
            "ImportError: /home/u/mamba/envs/t/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: "
            "undefined symbol: cublasLtMatmulAlgoGetHeuristic, version libcublasLt.so.11",
        ]
    )


def test_conda_pytorch_versioned_symbol_blames_no_path() -> None:
    text = _conda_undefined("mamba create -n t pytorch pytorch-cuda=11.8 -c pytorch -c nvidia")
    ids = _ids(load_text(text))
    assert "ld_library_path_shadowing" not in ids
    assert ids[0] == "torch_import_error"


def test_conda_pytorch_with_system_cuda_on_ld_library_path_is_still_the_path() -> None:
    # counter-example: the same failure, but LD_LIBRARY_PATH puts a system CUDA ahead of the env's libraries.
    text = _conda_undefined("conda install pytorch pytorch-cuda=11.8 -c pytorch -c nvidia").replace(
        ">>> import torch", "$ export LD_LIBRARY_PATH=/usr/local/cuda-11.2/lib64\n$ python\n>>> import torch", 1
    )
    assert _first(text) == "ld_library_path_shadowing"


# ---------------------------------------------- torch built from source by the user, and the build has no CUDA

NOT_COMPILED = [
    "Traceback (most recent call last):",
    '  File "train.py", line 8, in <module>',
    "    model.cuda()",
    '  File "/home/u/src/pytorch/torch/cuda/__init__.py", line 289, in _lazy_init',
    '    raise AssertionError("Torch not compiled with CUDA enabled")',
    "AssertionError: Torch not compiled with CUDA enabled",
]


def test_user_compiled_torch_without_cuda_is_the_source_build() -> None:
    said = "I compiled PyTorch v2.3.1 from source on Ubuntu 22.04 with an RTX 4070 and CUDA 12.1 installed."
    assert _first("\n".join([said, *NOT_COMPILED])) == "source_build_without_cuda"


def test_cloned_checkout_and_setup_py_is_the_source_build() -> None:
    steps = ["git clone --recursive https://github.com/pytorch/pytorch", "cd pytorch", "python setup.py develop"]
    assert _first("\n".join([*steps, *NOT_COMPILED])) == "source_build_without_cuda"


def _version_session(version: str) -> str:
    return "\n".join(
        [">>> import torch", ">>> torch.__version__", f"'{version}'", ">>> torch.ones(2).cuda()", *NOT_COMPILED[3:]]
    )


def test_a_checkout_version_without_cuda_is_the_source_build() -> None:
    # setup.py's local version ("a0+" and the commit, with or without "git") names a build from a checkout.
    assert _first(_version_session("1.6.0a0+b31f58d")) == "source_build_without_cuda"
    assert _first(_version_session("2.4.0a0+git1b2c3d4")) == "source_build_without_cuda"


def test_a_wheel_or_nvidia_build_version_is_not_a_source_build() -> None:
    # counter-examples: a PyPI version, and NVIDIA's JetPack build (".nv" suffix), are no build of the user's.
    assert _first(_version_session("2.2.1")) == "cpu_only_build"
    assert "source_build_without_cuda" not in _ids(load_text(_version_session("2.0.0a0+ec3941ad.nv23.02")))


def test_other_packages_from_source_or_a_wish_are_not_a_source_build() -> None:
    # counter-examples: torchvision built from source, an issue template's field, a wish: torch is a CPU wheel.
    for said in (
        "I built torchvision from source after pip install torch.",
        "- Build command you used (if compiling from source): N/A",
        "Is there a way to get CUDA without building pytorch from source?",
    ):
        ids = _ids(load_text("\n".join([said, *NOT_COMPILED])))
        assert "source_build_without_cuda" not in ids, said
        assert ids[0] == "cpu_only_build", said


def test_an_extension_not_compiled_with_cuda_is_not_torch_s_build() -> None:
    # counter-example: torch built from source, but the message is an extension op's own (its build lacks CUDA).
    text = "\n".join(
        [
            "I compiled pytorch 2.2 from source, torch.cuda.is_available() is True.",
            '  File "/home/u/ext/ops/nms.py", line 40, in nms',
            "RuntimeError: Not compiled with CUDA support",
        ]
    )
    assert "source_build_without_cuda" not in _ids(load_text(text))


def test_source_build_with_working_cuda_is_not_claimed() -> None:
    # counter-example: built from source, CUDA works, the error is another one.
    text = "\n".join(
        [
            "I built pytorch from source (USE_CUDA=1) and torch.cuda.is_available() returns True.",
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity; "
            "20.10 GiB already allocated; 1.10 GiB free; 21.00 GiB reserved in total by PyTorch)",
        ]
    )
    assert "source_build_without_cuda" not in _ids(load_text(text))


# ------------------------------------------- the installer's default described in words: the CPU build of torch


def test_installer_defaulting_to_the_cpu_build_is_read() -> None:
    text = (
        "On Windows 11, `uv tool install whisperx` pulls torch and it falls back to the CPU-only build even though "
        "I have an RTX 3060 and CUDA 12.4."
    )
    assert _first(text) == "cpu_only_build"


def test_installer_giving_cpu_torch_is_read_in_either_order() -> None:
    for said in (
        "poetry install resolved CPU-only torch 2.4 here, my GTX 1660 sits idle",
        "running the setup script downloaded torch 2.3.1 with cpu, so the RTX 2070 is unused",
    ):
        assert _first(said) == "cpu_only_build", said


def test_a_wish_for_the_cpu_torch_is_not_what_was_installed() -> None:
    # counter-examples: an infinitive (a plan), and a CPU torch that works where it was meant to.
    for said in (
        "Should I install the CPU-only torch first, then the CUDA one?",
        "The CPU-only torch runs fine in our docs build; on the training box with the RTX 3090 we use cu121.",
    ):
        assert "cpu_only_build" not in _ids(load_text(said)), said


def test_program_defaulting_to_the_cpu_device_is_not_the_build() -> None:
    # counter-example: the program's device default, not an installed build; nothing names a CPU build of torch.
    text = "The script defaults to the cpu device when I pass no --device flag, torch sees my RTX 3060 fine."
    assert "cpu_only_build" not in _ids(load_text(text))


# ---------------------------------------------- install sessions whose failure is no GPU problem


UV_FAILURE = [
    "  × No solution found when resolving dependencies:",
    "  ╰─▶ Because there is no version of torch=={pin} and you require torch=={pin}, we can conclude that the "
    "requirements are unsatisfiable.",
]


def _uv_session(pin: str, python: str, extra: str = "") -> str:
    return "\n".join(
        [
            "Pinning torch for our CI runners.",
            f"$ uv pip install torch=={pin} --index-url https://download.pytorch.org/whl/cpu",
            *(line.format(pin=pin) for line in UV_FAILURE),
            f"Python {python}",
            "Ubuntu 22.04 x86_64",
            extra,
        ]
    )


def test_requested_cpu_build_that_the_table_has_is_no_gpu_cause() -> None:
    # 2.4 has wheels for Python 3.8-3.12: the wheel exists and the CPU build is the goal: nothing to claim.
    report = load_text(_uv_session("2.4.1+cpu", "3.12.3"))
    assert not [f.id for f in report.findings if f.severity.value in ("error", "warning")]


def test_python_outside_the_release_table_keeps_no_wheel() -> None:
    # counter-example: 2.0 publishes no wheel for Python 3.12: "no wheel for this Python" stays.
    assert "no_wheel_for_platform" in _ids(load_text(_uv_session("2.0.1+cpu", "3.12.3")))


def test_cpu_index_with_cuda_unavailable_still_blames_the_cpu_build() -> None:
    # counter-example: the CPU index used, then CUDA unavailable on a GPU machine: the CPU build is the cause.
    text = "\n".join(
        [
            "pip install torch --index-url https://download.pytorch.org/whl/cpu",
            "Successfully installed torch-2.5.1+cpu",
            ">>> torch.cuda.is_available()",
            "False",
            "I have an RTX 4090, why is CUDA not available?",
        ]
    )
    assert _first(text) == "cpu_only_build"


def test_local_version_without_its_index_keeps_no_wheel() -> None:
    # counter-example: "+cu118" is not on PyPI; with no PyTorch index named, the wheel is out of reach.
    text = "\n".join(
        [
            "Windows 10, Python 3.11.4",
            "pip install torch==2.3.1+cu118",
            "ERROR: Could not find a version that satisfies the requirement torch==2.3.1+cu118 (from versions: none)",
            "ERROR: No matching distribution found for torch==2.3.1+cu118",
        ]
    )
    assert "no_wheel_for_platform" in _ids(load_text(text))


def test_unpublished_index_variant_keeps_no_wheel() -> None:
    # counter-example: 2.3 was never published for cu124 (cu118/cu121 only): the index has no such wheel.
    text = "\n".join(
        [
            "Python 3.10.12",
            "pip install torch==2.3.1 --index-url https://download.pytorch.org/whl/cu124",
            "ERROR: Could not find a version that satisfies the requirement torch==2.3.1 (from versions: none)",
            "ERROR: No matching distribution found for torch==2.3.1",
        ]
    )
    assert "no_wheel_for_platform" in _ids(load_text(text))


COLLECT_ENV_BUILD = """Collecting environment information...
PyTorch version: {version}
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Ubuntu 18.04.3 LTS
Python version: 3.7
Is CUDA available: False
CUDA runtime version: 10.1.243
GPU models and configuration: GPU 0: GeForce RTX 2080 Ti
Nvidia driver version: 440.33.01
"""


def test_collect_env_of_a_1x_checkout_build_without_cuda() -> None:
    # 1.x's setup.py wrote "a0+<sha>" without "git": still a build from a checkout.
    assert _first(COLLECT_ENV_BUILD.format(version="1.4.0a0+7f73f1d")) == "source_build_without_cuda"


def test_collect_env_of_a_cpu_wheel_is_not_a_checkout_build() -> None:
    # counter-example: a released CPU wheel on the same machine.
    assert _first(COLLECT_ENV_BUILD.format(version="1.4.0+cpu")) == "cpu_only_build"


def _oom_2x(total: str, free: str, own: str, capacity: str = "capacity") -> list[str]:
    return [
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total {capacity} of "
        f"{total} of which {free} is free. Including non-PyTorch memory, this process has {own} memory in use. "
        "Of the allocated memory 1.10 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but "
        "unallocated.",
    ]


def test_memory_outside_this_process_and_unlisted_is_others() -> None:
    # 2.x message, no "Process N has" line (the other job runs in another container): 38 GiB of 40 are not ours.
    assert oom_held_by_others(_oom_2x("39.39 GiB", "12.00 MiB", "1.52 GiB"))
    # PyTorch 2.1 spelled it "capacty": the same reading.
    assert oom_held_by_others(_oom_2x("39.39 GiB", "12.00 MiB", "1.52 GiB", capacity="capacty"))


def test_this_process_holding_the_card_is_the_job() -> None:
    # counter-example: this process holds nearly all of it.
    assert not oom_held_by_others(_oom_2x("7.79 GiB", "30.00 MiB", "7.70 GiB"))
    assert _first("\n".join(_oom_2x("7.79 GiB", "30.00 MiB", "7.70 GiB"))) == "cuda_out_of_memory"


# ------------------------------------------------ torch's own libraries loaded from outside the torch package


def test_torch_library_resolved_from_a_libtorch_download_is_a_second_copy() -> None:
    text = "\n".join(
        [
            ">>> import torch",
            "Traceback (most recent call last):",
            '  File "/srv/env/lib/python3.11/site-packages/torch/__init__.py", line 237, in <module>',
            "    from torch._C import *",
            "ImportError: /srv/env/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
            "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs",
            "$ ldd /srv/env/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so | grep c10",
            "\tlibc10.so => /usr/local/lib/libc10.so (0x00007f2b10000000)",
        ]
    )
    assert _first(text) == "stale_or_shadowed_torch"


def test_a_cpp_program_linking_libtorch_is_not_a_python_torch_copy() -> None:
    # counter-example: a C++ program linking LibTorch from /opt/libtorch: that is where it belongs.
    text = "\n".join(
        [
            "$ ldd build/infer | grep -E 'torch|c10'",
            "\tlibtorch_cpu.so => /opt/libtorch/lib/libtorch_cpu.so (0x00007f)",
            "\tlibc10.so => /opt/libtorch/lib/libc10.so (0x00007f)",
        ]
    )
    assert "stale_or_shadowed_torch" not in _ids(load_text(text))


def test_torch_libraries_inside_the_package_are_not_a_copy() -> None:
    # counter-example: the failing library is the package's own; nothing else is shown.
    text = "\n".join(
        [
            ">>> import torch",
            "ImportError: /srv/env/lib/python3.11/site-packages/torch/lib/libc10.so: cannot open shared object file: "
            "No such file or directory",
        ]
    )
    assert "stale_or_shadowed_torch" not in _ids(load_text(text))


def test_stray_torch_library_fix_names_the_directory() -> None:
    text = ">>> import torch\nImportError: /usr/lib64/libc10.so: undefined symbol: _ZN3c1010TensorImpl7releaseEv"
    first = load_text(text).findings[0]
    assert first.id == "stale_or_shadowed_torch"
    assert "/usr/lib64" in first.title and "/usr/lib64/libc10*" in first.fix


def test_setup_py_configuration_without_cuda_is_the_source_build() -> None:
    log = [
        "Building wheel torch-2.2.0a0+git8ac9b20",
        "-- Building version 2.2.0a0+git8ac9b20",
        "-- Not using cuDNN",
        "-- Not using CUDA",
        "-- Using MKLDNN",
    ]
    assert _first("\n".join(log)) == "source_build_without_cuda"


def test_rocm_build_log_is_not_a_cuda_less_build() -> None:
    # counter-example: a ROCm build says "Not using CUDA" by design.
    log = ["$ USE_ROCM=1 python setup.py develop", "-- Not using CUDA", "-- Detected HIP at /opt/rocm-6.0.2"]
    assert "source_build_without_cuda" not in _ids(load_text("\n".join(log)))


def test_issue_template_answered_source() -> None:
    said = "- How you installed PyTorch (`conda`, `pip`, source): source"
    assert _first("\n".join([said, *NOT_COMPILED])) == "source_build_without_cuda"
    # counter-example: the same template answered pip.
    pip = "- How you installed PyTorch (`conda`, `pip`, source): pip"
    assert _first("\n".join([pip, *NOT_COMPILED])) == "cpu_only_build"


def test_cpu_build_requested_in_a_text_without_a_gpu_is_not_claimed() -> None:
    # A slim image built on purpose with the CPU wheel, failing on host memory: the CPU build is what was meant.
    text = "\n".join(
        [
            "FROM python:3.12-slim",
            "RUN pip install torch==2.4.1+cpu -f https://download.pytorch.org/whl/torch_stable.html",
            "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: "
            "you tried to allocate 68719476736 bytes.",
        ]
    )
    report = load_text(text)
    assert not [f.id for f in report.findings if f.severity.value == "error"]
    assert "cpu_only_build" in _ids(report)  # still shown, as information


def test_cpu_build_requested_where_the_gpu_is_wanted_stays_a_claim() -> None:
    # counter-example: the same request, and the user expects the GPU.
    text = "\n".join(
        [
            "RUN pip install torch==2.4.1+cpu -f https://download.pytorch.org/whl/torch_stable.html",
            "but inside the container my RTX A4000 is never used",
        ]
    )
    report = load_text(text)
    assert report.findings[0].id == "cpu_only_build"
    assert report.findings[0].severity.value in ("error", "warning")


def test_cpu_only_machines_in_the_plural_are_a_cpu_machine() -> None:
    text = "\n".join(
        [
            "Our CPU-only servers run inference, and setup uses the cpuonly package:",
            "conda install pytorch cpuonly -c pytorch",
            "but I get RuntimeError: Found no NVIDIA driver on your system.",
        ]
    )
    ids = _ids(load_text(text))
    assert ids[0] == "no_nvidia_gpu"  # "servers": the plural is the same statement
