"""Round 7 (issue #14), system side: classes read from their programs' own messages (messages.json rows) and
decoys that must stay clean. Synthetic texts written for these tests, each with a counter-example."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.jetson_texts import driver_lists_gpu
from gpuassist.knowledge import messages
from gpuassist.knowledge.driver_support import capability_from_pci_id
from gpuassist.knowledge.wheels import capability_from_name, cuda_dropped


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# --- CUDA error 804 (cudaErrorCompatNotSupportedOnDevice) named by its number alone ------------------------------


def test_error_804_by_number_alone_is_forward_compat_on_unsupported_hw() -> None:
    text = (
        "After docker compose up the server logs CUDA Error 804 and falls back to the CPU.\n"
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
        "|   0  NVIDIA GeForce RTX 3080   Off  | 00000000:01:00.0 Off |   N/A |\n"
    )
    assert _ids(text)[:1] == ["forward_compat_unsupported_hw"]


def test_error_code_804_spelled_with_code_is_read() -> None:
    assert "forward_compat_unsupported_hw" in _ids("torch.cuda.is_available() warns: error code 804 on my GTX 1660\n")


def test_onnxruntimes_cuda_failure_804_is_read() -> None:
    assert "forward_compat_unsupported_hw" in _ids(
        "onnxruntime EP Error: CUDA failure 804 while creating the session\n"
    )


def test_another_number_after_error_is_not_804() -> None:
    # 8040 and 804.5 are not the code; nor is a line number.
    ids = _ids("CUDA error 8040 in my kernel\nnvidia-smi shows driver 804.5\ntorch 2.1.0+cu121\n")
    assert "forward_compat_unsupported_hw" not in ids


def test_error_802_by_number_alone_is_the_fabric_manager() -> None:
    text = "On our HGX H100 node torch.cuda.is_available() prints CUDA error 802 and returns False\n"
    assert "fabric_manager_missing" in _ids(text)


# --- The open kernel modules on a GPU without GSP (pre-Turing): any line of the module's multi-line printk -------


def test_the_open_modules_gsp_refusal_read_from_its_third_line_alone() -> None:
    text = (
        "journalctl -k after installing nvidia-open 575 on my GTX 980:\n"
        "kernel: NVRM: nvidia.ko because it does not include the required GPU\n"
        "kernel: nvidia 0000:02:00.0: probe with driver nvidia failed with error -1\n"
    )
    assert _ids(text)[:1] == ["driver_does_not_support_gpu"]


def test_the_open_modules_gsp_refusal_read_from_its_last_two_lines_joined() -> None:
    text = "dmesg: because it does not include the required GPU System Processor (GSP).\nnvidia-smi fails\n"
    assert _ids(text)[:1] == ["driver_does_not_support_gpu"]


def test_a_gpu_that_does_include_gsp_is_not_the_refusal() -> None:
    text = "NVRM: GPU0 GSP firmware loaded; the required GPU System Processor is present\ntorch 2.4.0 cuda True\n"
    assert "driver_does_not_support_gpu" not in _ids(text)


# --- A CDI device request (--device nvidia.com/gpu=...) the container engine cannot resolve ----------------------


def test_an_engine_without_cdi_takes_the_name_as_a_path() -> None:
    text = (
        "$ podman run --rm --device nvidia.com/gpu=0 fedora nvidia-smi\n"
        "Error: stat nvidia.com/gpu=0: no such file or directory\n"
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_docker_before_cdi_gathers_the_name_as_a_device_node() -> None:
    text = (
        "$ docker run --device nvidia.com/gpu=all ubuntu nvidia-smi\n"
        "docker: Error response from daemon: error gathering device information while adding custom device "
        '"nvidia.com/gpu=all": no such file or directory.\n'
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_a_missing_cdi_spec_is_unresolvable() -> None:
    text = "Error: crun: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=GPU-1234abcd\n"
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_a_cdi_injection_failure_with_a_provider_prefix_is_unresolvable_too() -> None:
    text = (
        "OCI runtime create failed: error modifying OCI spec: failed to inject CDI devices: "
        "unresolvable CDI devices k8s.example.net/gpu=3: unknown\n"
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_another_vendors_cdi_device_is_not_this_cause() -> None:
    keys = [r.key for r in messages.lookup("Error: setting up CDI devices: unresolvable CDI devices amd.com/gpu=all")]
    assert "cdi_unresolvable" not in keys


def test_docker_with_the_cdi_feature_off_cannot_select_the_cdi_driver() -> None:
    text = 'docker: Error response from daemon: could not select device driver "cdi" with capabilities: [].\n'
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_a_cdi_request_that_worked_is_not_blamed() -> None:
    text = (
        "$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
        "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-0a1b2c3d-1111-2222-3333-444455556666)\n"
    )
    assert "docker_no_gpu_runtime" not in _ids(text)


def test_a_missing_device_node_path_is_not_a_cdi_name() -> None:
    keys = [r.key for r in messages.lookup("Error: stat /dev/nvidia-uvm: no such file or directory")]
    assert not any(k.startswith("cdi_") for k in keys)


# --- The NGC banner ("The NVIDIA Driver was not detected") beside a GPU request -----------------------------------

NGC_BANNER = (
    "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
    "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
    "   https://docs.nvidia.com/datacenter/cloud-native/ .\n"
)


def test_the_banner_after_a_run_with_gpus_claims_no_missing_runtime() -> None:
    text = "$ docker run --gpus all -it --rm nvcr.io/nvidia/pytorch:23.10-py3\n" + NGC_BANNER
    assert "docker_no_gpu_runtime" not in _ids(text)


def test_the_banner_after_a_cdi_device_request_claims_no_missing_runtime() -> None:
    text = "$ podman run --device nvidia.com/gpu=all --rm nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n" + NGC_BANNER
    assert "docker_no_gpu_runtime" not in _ids(text)


def test_the_banner_after_a_run_without_a_gpu_request_is_still_the_missing_runtime() -> None:
    text = "$ docker run -it --rm nvcr.io/nvidia/pytorch:23.10-py3\n" + NGC_BANNER
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


# --- A Jetson whose driver lists the GPU while another program (a monitor) says it is not detected ----------------


def test_a_monitor_missing_a_gpu_that_nvidia_smi_lists_is_no_wheel_problem() -> None:
    text = (
        "Jetson AGX Orin, JetPack 6.2, L4T 36.4.3, Kernel: 5.15.148-tegra\n"
        "$ nvidia-smi -L\nGPU 0: Orin (nvgpu)\n"
        "but the dashboard says: GPU not detected\n"
    )
    assert _ids(text) == []


def test_torch_not_seeing_the_gpu_on_a_jetson_still_reads_the_wheel() -> None:
    text = (
        "Jetson AGX Orin, JetPack 6.2, L4T 36.4.3, Kernel: 5.15.148-tegra\n"
        "$ nvidia-smi -L\nGPU 0: Orin (nvgpu)\n"
        ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n"
    )
    assert "jetson_needs_nvidia_wheel" in _ids(text)


# --- A GPU older than every architecture the build's CUDA can compile for (no arch list known: torch 1.x) ---------


def _collect_env(torch: str, cuda: str, gpu: str, driver: str) -> str:
    return (
        f"PyTorch version: {torch}\nIs debug build: No\nCUDA used to build PyTorch: {cuda}\n\n"
        "OS: Ubuntu 16.04.6 LTS\nGCC version: (Ubuntu 5.4.0-6ubuntu1~16.04.12) 5.4.0 20160609\n\n"
        f"Python version: 3.6\nIs CUDA available: No\nCUDA runtime version: {cuda}.130\n"
        f"GPU models and configuration: GPU 0: {gpu}\nNvidia driver version: {driver}\n"
        f"\nVersions of relevant libraries:\n[pip3] torch=={torch}\n"
    )


def test_a_tesla_architecture_gpu_is_dropped_by_a_cuda_10_build() -> None:
    report = load_text(_collect_env("1.4.0", "10.1", "GeForce GTX 285", "340.108"))
    ids = [f.id for f in report.findings]
    assert ids[:1] == ["gpu_arch_dropped_from_build"]
    fix = report.findings[0].fix
    assert "TORCH_CUDA_ARCH_LIST" not in fix and "CPU build" in fix


def test_a_pascal_gpu_under_the_same_build_is_not_dropped() -> None:
    ids = _ids(_collect_env("1.4.0", "10.1", "GeForce GTX 1080", "440.64"))
    assert "gpu_arch_dropped_from_build" not in ids


def test_the_toolkit_floors_follow_the_cuda_release_notes() -> None:
    assert cuda_dropped("10.0", "1.2") == "7.0"
    assert cuda_dropped("10.2", "2.1") == "9.0"
    assert cuda_dropped("11.8", "3.5") is None
    assert cuda_dropped("12.1", "3.7") == "12.0"
    assert cuda_dropped("13.0", "6.1") == "13.0"
    assert cuda_dropped("6.5", "1.3") is None


def test_tesla_architecture_names_and_their_look_alikes() -> None:
    assert capability_from_name("GeForce 210") == "1.2"
    assert capability_from_name("NVIDIA GeForce GT 240") == "1.2"
    assert capability_from_name("GeForce GTX 280") == "1.3"
    # The mobile GTX 260M/280M are G92 (1.1), not GT200; an RTX 2080 is Turing.
    assert capability_from_name("GeForce GTX 260M") is None
    assert capability_from_name("GeForce RTX 2080") == "7.5"


# --- The open kernel modules named as installed, a pre-Turing GPU named, lshw showing the GPU unclaimed ------------

LSHW_TEXT = (
    "- GPU: NVIDIA GeForce GTX 1060 6GB\n"
    "The installer chose nvidia-driver-575-open for it.\n"
    "$ sudo lshw -c display\n"
    "  *-display UNCLAIMED\n"
    "       description: VGA compatible controller\n"
    "       product: GP106 [GeForce GTX 1060 6GB]\n"
)


def test_the_open_modules_on_pascal_with_the_gpu_unclaimed_is_an_unsupported_driver() -> None:
    assert _ids(LSHW_TEXT)[:1] == ["driver_does_not_support_gpu"]


def test_the_proprietary_module_of_the_same_branch_is_not_blamed() -> None:
    assert "driver_does_not_support_gpu" not in _ids(LSHW_TEXT.replace("575-open", "575"))


def test_the_open_modules_on_a_turing_gpu_are_not_blamed() -> None:
    text = LSHW_TEXT.replace("GTX 1060 6GB", "RTX 2060").replace("GP106", "TU106")
    assert "driver_does_not_support_gpu" not in _ids(text)


def test_the_banner_followed_by_nvidia_smis_table_claims_no_missing_runtime() -> None:
    text = (
        "pytorch-1  | " + NGC_BANNER.splitlines()[0] + "\n"
        "pytorch-1  | +-----------------------------------------------------------------------------+\n"
        "pytorch-1  | | NVIDIA-SMI 550.54.14    Driver Version: 551.61    CUDA Version: 12.4 |\n"
    )
    assert "docker_no_gpu_runtime" not in _ids(text)


def test_a_host_table_after_a_new_prompt_does_not_clear_the_banner() -> None:
    text = (
        "$ docker run -it --rm nvcr.io/nvidia/pytorch:23.10-py3\n"
        + NGC_BANNER
        + "$ nvidia-smi\n| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4 |\n"
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_a_monitor_missing_a_gpu_that_device_query_opened_is_no_wheel_problem() -> None:
    text = (
        "Jetson Xavier NX, JetPack 5.1.2 (L4T R35.4.1)\n"
        "./deviceQuery\nDetected 1 CUDA Capable device(s)\nResult = PASS\n"
        "but my monitoring tool still says: GPU not detected\n"
    )
    assert "jetson_needs_nvidia_wheel" not in _ids(text)


def test_a_failed_device_query_on_a_jetson_clears_nothing() -> None:
    assert not driver_lists_gpu(["cudaGetDeviceCount returned 100", "Result = FAIL"])
    assert not driver_lists_gpu(["GPU 0: not found"])
    assert driver_lists_gpu(["GPU 0: NVIDIA Thor"])


# --- go-nvml's return-code names (nvidia-ctk cdi generate, the device plugin) ------------------------------------


def test_go_nvmls_library_not_found_reads_as_the_nvml_row() -> None:
    line = "ERRO[0000] failed to generate CDI spec: failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND"
    assert [r.key for r in messages.lookup(line)] == ["NVML_ERROR_LIBRARY_NOT_FOUND"]
    assert "no_nvidia_driver" in _ids(line + "\n")


def test_an_error_name_without_the_nvml_prefix_is_not_read() -> None:
    assert messages.lookup("lookup failed: ERROR_NOT_FOUND in cache") == []


# --- A GPU lspci cannot name (newer than its pci.ids), read by its device id block against the driver branch -------

UNNAMED = (
    "Ubuntu 22.04, installed nvidia-driver-470 from the archive. nvidia-smi: No devices were found\n"
    "$ lspci -nn | grep -i nvidia\n"
    "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation Device [10de:2684] (rev a1)\n"
)


def test_an_ada_device_id_under_a_470_driver_is_an_unsupported_driver() -> None:
    assert _ids(UNNAMED)[:1] == ["driver_does_not_support_gpu"]


def test_the_same_id_under_a_driver_that_knows_ada_is_not_blamed_on_the_branch() -> None:
    ids = _ids(UNNAMED.replace("nvidia-driver-470", "nvidia-driver-550"))
    assert ids[:1] != ["driver_does_not_support_gpu"]


def test_device_id_blocks() -> None:
    assert capability_from_pci_id("2684") == "8.9"  # RTX 4090
    assert capability_from_pci_id("249d") == "8.6"  # RTX 3070 Laptop
    assert capability_from_pci_id("2b85") == "12.0"  # RTX 5090
    assert capability_from_pci_id("1d01") is None  # Pascal/Volta block: not one generation
    assert capability_from_pci_id("zz12") is None
