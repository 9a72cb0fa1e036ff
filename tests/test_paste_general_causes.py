"""The general mechanisms behind the held-out misses of batches 6 and 7 (tests/data/errors/index.json): short texts in
the exact formats the tools print, each with a counter-example that must not trigger the same verdict."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.paste_causes import _lib_failure, _site_packages
from gpuassist.ingest.process_readings import two_interpreters_match
from gpuassist.report.model import Report


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _claimed(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is not Severity.INFO]


CUDNN_NOT_FOUND = (
    "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: "
    "No such file or directory\nPlease make sure libcudnn_ops_infer.so.8 is in your library path!\n"
    "Aborted (core dumped)"
)


def test_a_library_another_program_cannot_load_is_not_blamed_on_torch() -> None:
    report = load_text(CUDNN_NOT_FOUND)
    assert "torch_import_error" not in _ids(report)


def test_the_same_failure_while_importing_torch_is_torchs() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/run.py", line 3, in <module>\n'
        "    import torch\n"
        '  File "/srv/venv/lib/python3.11/site-packages/torch/__init__.py", line 237, in <module>\n'
        "    from torch._C import *\n"
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
    )
    assert _ids(load_text(text))[0] == "torch_import_error"


VERSIONED = (
    "ImportError: /srv/venv/lib/python3.12/site-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: "
    "undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12\n"
)


def test_a_wheel_library_missing_a_versioned_symbol_blames_the_companion_found_first() -> None:
    text = VERSIONED + (
        "$ ldd /srv/venv/lib/python3.12/site-packages/nvidia/cusparse/lib/libcusparse.so.12\n"
        "\tlibnvJitLink.so.12 => /usr/local/cuda-12.1/lib64/libnvJitLink.so.12 (0x00007f0000000000)\n"
        "$ echo $LD_LIBRARY_PATH\n"
        "/usr/local/cuda-12.1/lib64:/opt/tools/lib\n"
    )
    report = load_text(text)
    first = report.findings[0]
    assert first.id == "ld_library_path_shadowing" and first.severity is Severity.ERROR
    assert "/usr/local/cuda-12.1/lib64" in first.title
    assert "export LD_LIBRARY_PATH=/opt/tools/lib" in first.fix  # the other directory is kept
    assert any("libnvJitLink.so.12 =>" in str(e.value) for e in first.evidence)


def test_without_ldd_the_fix_puts_the_wheels_copy_first() -> None:
    first = load_text(VERSIONED).findings[0]
    assert first.id == "ld_library_path_shadowing"
    assert "nvidia.nvjitlink" in first.fix


SMI_TABLE = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
)


def test_nvidia_smi_missing_in_a_container_while_the_host_has_it() -> None:
    text = f"On the host:\n{SMI_TABLE}\nInside my docker container:\n$ nvidia-smi\n"
    text += "bash: nvidia-smi: command not found\n"
    report = load_text(text)
    assert _ids(report)[0] == "docker_no_gpu_runtime"
    assert "no_nvidia_driver" not in _claimed(report)


def test_nvidia_smi_missing_without_a_container_is_not_a_container_problem() -> None:
    text = f"{SMI_TABLE}\n$ sudo nvidia-smi\nsudo: nvidia-smi: command not found\n"
    assert "docker_no_gpu_runtime" not in _ids(load_text(text))


def test_a_compose_gpu_request_that_does_not_work() -> None:
    text = (
        "services:\n  trainer:\n    image: pytorch/pytorch\n    deploy:\n      resources:\n        reservations:\n"
        "          devices:\n          - driver: nvidia\n            capabilities: [gpu]\n"
        "The GPU is not detected in the container, torch.cuda.is_available() returns False\n"
    )
    assert _ids(load_text(text))[0] == "docker_no_gpu_runtime"


NO_DRIVER = (
    "RuntimeError: Found no NVIDIA driver on your system. "
    "Please check that you have an NVIDIA GPU and installed a driver"
)


def test_a_vm_whose_only_display_adapter_is_virtual_has_no_nvidia_gpu() -> None:
    text = NO_DRIVER + "\n$ lspci | grep VGA\n00:02.0 VGA compatible controller: VMware SVGA II Adapter\n"
    assert _ids(load_text(text))[0] == "no_nvidia_gpu"


def test_an_lspci_listing_with_an_nvidia_device_proves_nothing_missing() -> None:
    text = NO_DRIVER + "\n01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)\n"
    assert _ids(load_text(text))[0] != "no_nvidia_gpu"


def test_a_user_on_the_cpu_makes_no_gpu_the_likeliest_reading_of_no_driver() -> None:
    assert _ids(load_text(NO_DRIVER + "\nI am using the CPU for this step."))[0] == "no_nvidia_gpu"
    assert _ids(load_text(NO_DRIVER))[0] == "no_nvidia_driver"


def test_a_cpu_torch_version_mentioned_in_passing() -> None:
    report = load_text("The app starts but the log says: Torch 2.0.1+cpu, and the GPU stays idle.")
    assert _ids(report)[0] == "cpu_only_build"
    assert report.facts.value("torch.version") == "2.0.1+cpu"


def test_pips_list_of_available_versions_is_not_the_installed_one() -> None:
    text = (
        "ERROR: Could not find a version that satisfies the requirement torch==2.1.0+cu121 (from versions: 2.2.0, "
        "2.2.0+cpu, 2.2.0+cu121)\nERROR: No matching distribution found for torch==2.1.0+cu121\n"
    )
    report = load_text(text)
    assert not report.facts.known("torch.version")
    assert "cpu_only_build" not in _claimed(report)


COLLECT_ENV_NA = (
    "PyTorch version: N/A\nIs debug build: N/A\nCUDA used to build PyTorch: N/A\nROCM used to build PyTorch: N/A\n\n"
    "OS: Ubuntu 22.04.4 LTS (x86_64)\nPython version: 3.11.9 (64-bit runtime)\nIs CUDA available: N/A\n"
    "GPU models and configuration:\nGPU 0: NVIDIA A100-SXM4-40GB\n\nNvidia driver version: 550.54.15\n"
)


def test_collect_env_that_could_not_import_an_installed_torch() -> None:
    report = load_text(COLLECT_ENV_NA + "\nVersions of relevant libraries:\n[pip3] torch==2.3.0\n")
    assert report.meta["source"] == "collect_env"
    assert _ids(report)[0] == "torch_import_error"


def test_collect_env_with_no_torch_installed_at_all() -> None:
    assert _ids(load_text(COLLECT_ENV_NA))[0] == "torch_not_installed"


def test_curly_quotes_of_a_retyped_message_are_read() -> None:
    text = "NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver."
    assert _ids(load_text(text))[0] == "nvidia_module_not_loaded"


def test_an_empty_issue_template_bullet_is_not_collect_env() -> None:
    text = (
        " - PyTorch Version (e.g., 1.0): 2.1\n - GPU models and configuration:\n - Python version: 3.7\n\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/env/lib/python3.7/site-packages/torch/__init__.py", line 84, in <module>\n'
        "    from torch._C import *\n"
        "ImportError: /home/u/env/lib/python3.7/site-packages/torch/lib/libtorch.so.1: undefined symbol: _ZN3c10\n"
    )
    report = load_text(text)
    assert report.meta["source"] == "error_text"
    assert _ids(report)[0] == "torch_import_error"
    assert "no_wheel_for_platform" not in _ids(report)  # torch's own frame shows a wheel is installed


def test_a_torch_install_on_a_jetson() -> None:
    text = "On my Jetson TX2 I did pip3 install torch and now python dies with Illegal instruction (core dumped)"
    assert _ids(load_text(text))[0] == "jetson_needs_nvidia_wheel"


def test_a_jetson_question_about_another_library_is_not_a_torch_wheel_problem() -> None:
    text = "Jetson Xavier NX, JetPack 5.1.2: MediaPipe does not use the GPU, tegrastats shows GR3D_FREQ 0%"
    assert "jetson_needs_nvidia_wheel" not in _ids(load_text(text))


NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled"


def test_a_mac_named_in_prose_turns_not_compiled_with_cuda_into_use_mps() -> None:
    report = load_text(NOT_COMPILED + "\nI'm on an M1 MacBook Pro, what can I do?")
    assert _ids(report)[0] == "macos_no_cuda_use_mps"
    assert "cpu_only_build" not in _claimed(report)
    assert "no_wheel_for_platform" not in _ids(report)  # nothing says it is an Intel Mac


def test_a_macos_home_path_is_a_mac_and_a_linux_one_is_not() -> None:
    frame = '  File "{home}/proj/env/lib/python3.10/site-packages/torch/cuda/__init__.py", line 239, in _lazy_init\n'
    mac = load_text(frame.format(home="/Users/ana") + NOT_COMPILED)
    linux = load_text(frame.format(home="/home/ana") + NOT_COMPILED)
    assert _ids(mac)[0] == "macos_no_cuda_use_mps"
    assert _ids(linux)[0] == "cpu_only_build"


def test_false_stated_before_the_call_it_answers() -> None:
    text = "export CUDA_VISIBLE_DEVICES=1\nOn a machine with one GPU the following returns false\n\n"
    text += "`torch.cuda.is_available()`"
    assert _ids(load_text(text))[0] == "cuda_visible_devices_hides_gpus"


def test_a_conda_cuda_pin_stands_for_the_build_the_driver_is_too_old_for() -> None:
    text = (
        "conda install pytorch torchvision cudatoolkit=10.2 -c pytorch\n"
        "| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |\n"
        "GPU available: False\n"
    )
    report = load_text(text)
    assert report.facts.value("torch.cuda_build") == "10.2"
    assert _ids(report)[0] == "driver_too_old"


def test_a_conda_plan_that_fell_back_to_cpu_beats_the_pin() -> None:
    text = (
        "conda install pytorch cudatoolkit=11.3 -c pytorch\n"
        "  pytorch            pytorch/win-64::pytorch-1.10.0-py3.8_cpu_0\n"
    )
    assert load_text(text).facts.value("torch.cuda_build") is None


def test_wsl_named_in_prose_reads_a_libcuda_failure_as_wsls_own() -> None:
    text = (
        "I am using WSL2 with Ubuntu 22.04.\n"
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: "
        "No such file or directory\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "wsl_libcuda_problem"
    assert "no_nvidia_driver" not in _claimed(report)


def test_libcuda_so_1_seen_loading_rules_out_no_driver() -> None:
    text = (
        ">>> cdll.LoadLibrary('libcuda.so.1')\n<CDLL 'libcuda.so.1', handle 55d0 at 0x7f74>\n"
        ">>> cdll.LoadLibrary('libcuda.so')\n"
        "OSError: libcuda.so: cannot open shared object file: No such file or directory\n"
    )
    assert "no_nvidia_driver" not in _claimed(load_text(text))


def test_site_packages_paths_are_read_from_the_directory_name_back() -> None:
    assert _site_packages('  File "./.venv/lib/python3.10/site-packages/torch/__init__.py"') == [
        "/.venv/lib/python3.10/site-packages"
    ]
    assert _site_packages(r"Error loading C:\Users\u\env\lib\site-packages\torch\lib\c10.dll") == [
        r"C:\Users\u\env\lib\site-packages"
    ]
    assert _site_packages("x /a/dist-packages/b/site-packages/c") == ["/a/dist-packages", "/b/site-packages"]
    assert _site_packages("/dist-packages alone") == []  # a path needs a directory before it
    assert _site_packages("/a" * 1000) == []


def test_a_failing_library_path_is_the_run_of_path_characters_before_it() -> None:
    found = _lib_failure("OSError: x:/usr/local/cuda-11.2/lib64/libcublas.so.11: undefined symbol: cublasLtFoo")
    assert found is not None and found.path == "/usr/local/cuda-11.2/lib64/libcublas.so.11"
    nested = _lib_failure("libfoo.so.1: undefined symbol: x/opt//usr/lib/libbar.so: cannot open shared object file")
    assert nested is not None and nested.path == "/usr/lib/libbar.so"
    assert _lib_failure("libfoo.so: cannot open shared object file") is None  # no path named


NO_DRIVER = (
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
    "driver from http://www.nvidia.com/Download/index.aspx"
)


def test_no_driver_inside_a_container_is_first_the_container_without_the_gpu() -> None:
    report = load_text(f"Creating app_web_run ... done\n{NO_DRIVER}\n")
    assert _claimed(report)[0] == "docker_no_gpu_runtime"
    assert "no_nvidia_gpu" not in _claimed(report)
    said = load_text(f"I run it inside the docker container and get\n{NO_DRIVER}\n")
    assert _claimed(said)[0] == "docker_no_gpu_runtime"


def test_no_driver_outside_a_container_or_on_a_machine_without_gpu_is_not_the_container() -> None:
    assert _claimed(load_text(NO_DRIVER))[0] != "docker_no_gpu_runtime"
    no_gpu = load_text(f"I run it inside the docker container on a laptop without GPU\n{NO_DRIVER}\n")
    assert _claimed(no_gpu)[0] == "no_nvidia_gpu"


def test_windows_named_in_words_with_cuda_unavailable_guesses_the_pypi_cpu_build() -> None:
    report = load_text("On my Windows 10 PC torch.cuda.is_available() returns False after pip install torch")
    assert report.facts.value("host.os") == "Windows"
    assert _claimed(report) == ["cpu_only_build"]
    assert report.findings[0].title.startswith("Possible cause")
    cjk = load_text("后来我本地win10机器，同样方法安装好后，torch.cuda.is_available() 就是False")
    assert _claimed(cjk) == ["cpu_only_build"]
    app = load_text("### OS\n\nWindows\n\n### What happened?\n\nthe app starts up with `Using device_type cpu`.")
    assert _claimed(app) == ["cpu_only_build"]


def test_windows_words_beside_linux_wsl_or_a_container_do_not_make_the_host_windows() -> None:
    for text in (
        "Windows 11 host, Ubuntu in WSL2: torch.cuda.is_available() returns False",
        "windows + docker desktop: torch.cuda.is_available() returns False",
        "I dual-boot Windows and Linux; torch.cuda.is_available() returns False",
    ):
        report = load_text(text)
        assert report.facts.value("host.os") != "Windows", text
        assert "cpu_only_build" not in _claimed(report), text


def test_a_jetpack_named_in_words_picks_its_l4t_wheels() -> None:
    report = load_text(
        "My device is Jetson Nano, using JetPack4.3.\n>>> import torch\n>>> torch.__version__\n'1.4.0'\n"
        ">>> torch.cuda.is_available()\nFalse\n"
    )
    fix = next(f.fix for f in report.findings if f.id == "jetson_needs_nvidia_wheel")
    assert "L4T R32" in fix and "/jp/v461/" in fix


def test_a_filled_in_issue_template_under_an_error_is_an_error_text_with_the_template_facts() -> None:
    report = load_text(
        '>>> import torch\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
        "ImportError: libcufft.so.10.0: cannot open shared object file: No such file or directory\n\n"
        "- PyTorch version:1.4.0\n- Python version:3.6.8\n- OS:Ubuntu18.04\n"
    )
    assert report.meta["source"] == "error_text"
    assert report.facts.value("torch.version") == "1.4.0"
    assert _claimed(report)[0] == "torch_import_error"
    assert "To confirm:" in report.findings[0].fix
    collect = load_text(
        "PyTorch version: 1.4.0\nPython version: 3.6.8\nIs CUDA available: False\nCUDA used to build PyTorch: None\n"
    )
    assert collect.meta["source"] == "collect_env"


def test_pytorch_1x_oom_numbers_show_memory_held_outside_this_process() -> None:
    held = load_text(
        "RuntimeError: CUDA out of memory. Tried to allocate 338.00 MiB (GPU 0; 3.95 GiB total capacity; "
        "1.62 GiB already allocated; 23.00 MiB free; 9.10 MiB cached)"
    )
    assert _claimed(held)[0] == "gpu_memory_held_by_others"
    own = load_text(
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 11.17 GiB total capacity; "
        "10.67 GiB already allocated; 2.81 MiB free; 185.39 MiB cached)"
    )
    assert _ids(own)[0] == "cuda_out_of_memory" and "gpu_memory_held_by_others" not in _ids(own)


def test_the_oom_numbers_alone_are_read_without_the_error_name() -> None:
    report = load_text(
        "Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total capacity; 69.17 MiB already allocated; "
        "24.56 MiB free; 86.00 MiB reserved in total by PyTorch)"
    )
    assert _claimed(report)[0] == "gpu_memory_held_by_others"


SMI_TABLE = (
    "| NVIDIA-SMI 410.48                 Driver Version: 410.48                    |\n"
    "|   0  Tesla P100-SXM2...  Off  | 00000000:05:00.0 Off |                    0 |\n"
    "| N/A   36C    P0    41W / 300W |  {used}MiB / 16280MiB |      0%      Default |\n"
    "| Processes:                                                       GPU Memory |\n"
    "|  GPU       PID   Type   Process name                             Usage      |\n"
    "|=============================================================================|\n"
)


def test_nvidia_smi_memory_in_use_with_no_process_listed_is_held_by_others() -> None:
    report = load_text(SMI_TABLE.format(used=12799))
    assert _claimed(report) == ["gpu_memory_held_by_others"]
    assert report.findings[0].title.startswith("Possible cause")


def test_nvidia_smi_memory_of_a_listed_process_or_little_memory_is_not_held_by_others() -> None:
    listed = SMI_TABLE.format(used=12799) + "|    0     31794    C   python                    12789MiB |\n"
    assert "gpu_memory_held_by_others" not in _claimed(load_text(listed))
    assert "gpu_memory_held_by_others" not in _claimed(load_text(SMI_TABLE.format(used=400)))


def test_pip_finding_no_torch_at_all_is_no_wheel_not_a_cpu_build_nor_macos() -> None:
    report = load_text(
        "% pip3 install torch --index-url https://download.pytorch.org/whl/cpu\n"
        "Looking in indexes: https://download.pytorch.org/whl/cpu\n"
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
        "ERROR: No matching distribution found for torch\n\n"
        "PyTorch version: N/A\nOS: macOS 15.1.1 (arm64)\nPython version: 3.13.0 (64-bit runtime)\n"
        "Is CUDA available: N/A\n"
    )
    assert _claimed(report)[0] == "no_wheel_for_platform"
    assert not {"cpu_only_build", "macos_no_cuda_use_mps", "torch_not_installed"} & set(_claimed(report))
    installed = load_text(
        "Looking in indexes: https://download.pytorch.org/whl/cpu\n"
        "Successfully installed torch-2.5.1+cpu\ntorch.cuda.is_available() returns False"
    )
    assert _claimed(installed)[0] == "cpu_only_build"


def test_two_interpreter_paths_and_a_missing_module_is_the_other_interpreter() -> None:
    report = load_text(
        "ModuleNotFoundError: No module named 'torch' in jupyter, fine in the terminal\n"
        "sys.executable for python:\n'C:\\\\Users\\\\u\\\\anaconda3\\\\envs\\\\py36\\\\python.exe'\n"
        "sys.executable for jupyter:\n'C:\\\\Users\\\\u\\\\anaconda3\\\\python.exe'\n"
    )
    assert _claimed(report)[0] == "wrong_interpreter_or_kernel"
    same = ["ModuleNotFoundError: No module named 'torch'", "/usr/bin/python3", "'/usr//bin/python3'"]
    assert two_interpreters_match(same) is None
    assert two_interpreters_match(["/usr/bin/python3", "/opt/conda/bin/python"]) is None  # nothing fails
