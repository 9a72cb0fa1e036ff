"""Robustness of the prose readers (issue #14): the same cause told by the next user in their own words.

Each retelling restates a corpus text of kind "prose" (``base``: its file in tests/data/errors) the way another user
writes the SAME problem: other words and sentence order, another GPU/OS/version, a question, Markdown or an issue
template's headings, the error quoted inline or only named, a non-native writer, a short sentence in another language.
Decoys use the same words for a healthy setup, a solved problem, a docs question or another machine: they must claim
no error. The texts are written here (after reading how public threads word them), not taken from a thread.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.system_causes import says_gpu_unused


class Retelling(NamedTuple):
    name: str
    expect: str
    base: str  # the corpus text whose cause this restates
    why: str  # what differs from the base
    text: str


class Decoy(NamedTuple):
    name: str
    why: str
    text: str
    banned: tuple[str, ...] = ()  # ids that must not be named at all, not even at info severity


R = Retelling
RETELLINGS = [
    # --- cpu_only_build
    R(
        "cpu-build-plain-english",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "English, fact first, the version suffix named",
        "pip install -r requirements.txt gave me torch 2.3.1+cpu, so torch.cuda.is_available() is always False and "
        "--use-cuda does nothing. The GPU build from pytorch.org works.\n",
    ),
    R(
        "cpu-build-markdown-template",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "issue template headings, the build named in a bullet",
        "### Describe the bug\nThe model runs on CPU only, my RTX 4070 is idle.\n\n### Environment\n"
        "- OS: Windows 11\n- torch: 2.1.0+cpu (installed by requirements.txt)\n- Python 3.10\n",
    ),
    # --- cuda_out_of_memory
    R(
        "oom-named-only",
        "cuda_out_of_memory",
        "Comfy-Org-ComfyUI-2892-oom-after-update-batch-size-changed.txt",
        "the error only named in quotes, other GPU",
        "Since updating I get the usual 'CUDA out of memory' on my 3060 12GB with the same workflow that worked "
        "last week. Did the default batch size change?\n",
    ),
    R(
        "oom-inline-backticks",
        "cuda_out_of_memory",
        "bowenc0221-panoptic-deeplab-118-cuda-oom-colab-ims-per-batch.txt",
        "the error quoted inline with backticks, Colab",
        "On Colab (T4) training stops at iteration 0 with `RuntimeError: CUDA out of memory. Tried to allocate "
        "256.00 MiB`. I set IMS_PER_BATCH to 8, is that too much?\n",
    ),
    R(
        "oom-spanish",
        "cuda_out_of_memory",
        "Comfy-Org-ComfyUI-2892-oom-after-update-batch-size-changed.txt",
        "Spanish sentence around the English error",
        "Hola, al generar imágenes de 1024x1024 me sale torch.cuda.OutOfMemoryError: CUDA out of memory. "
        "Tengo una RTX 3070 de 8 GB.\n",
    ),
    # --- cuda_visible_devices_hides_gpus
    R(
        "visible-devices-order",
        "cuda_visible_devices_hides_gpus",
        "KeYang8-WITT-34-no-cuda-gpus-visible-devices.txt",
        "the cause stated first, the error after",
        "I had CUDA_VISIBLE_DEVICES=1 in my .bashrc on a single-GPU machine and got `RuntimeError: No CUDA GPUs "
        "are available`. Removing it fixed it.\n",
    ),
    R(
        "visible-devices-empty",
        "cuda_visible_devices_hides_gpus",
        "Grace9994-CoMoSVC-6-cuda-visible-devices-1.txt",
        "an empty value exported, a question",
        'export CUDA_VISIBLE_DEVICES="" was in the launch script.\nNow torch.cuda.device_count() is 0 and '
        "is_available() returns False, why?\n",
    ),
    # --- driver_too_old
    R(
        "driver-too-old-markdown",
        "driver_too_old",
        "nagadomi-nunif-702-driver-insufficient-cuda13.txt",
        "bold and a bullet, another CUDA version",
        "**Error:** `CUDA driver version is insufficient for CUDA runtime version`\n\n"
        "- driver 470.199\n- torch 2.4.0+cu121\n",
    ),
    R(
        "driver-too-old-found-version",
        "driver_too_old",
        "pytorch-1564-source-build-driver-too-old-found-8000.txt",
        "the torch message inline in a sentence",
        "After upgrading torch I get 'The NVIDIA driver on your system is too old (found version 11040)' on our "
        "Ubuntu 20.04 server, the GPU is a V100.\n",
    ),
    # --- macos_no_cuda_use_mps
    R(
        "mac-m2-english",
        "macos_no_cuda_use_mps",
        "chatchat-space-Langchain-Chatchat-2990-mac-m3-not-compiled-with-cuda-use-mps-cjk.txt",
        "English, M2, question",
        "Running on my MacBook Pro M2 I get AssertionError: Torch not compiled with CUDA enabled. How do I run it?\n",
    ),
    R(
        "mac-apple-silicon-japanese",
        "macos_no_cuda_use_mps",
        "dwrensha-acronymy-assistant-2-m1-not-compiled-with-cuda.txt",
        "Japanese sentence, M1 named in it",
        "M1 MacでAssertionError: Torch not compiled with CUDA enabled と出ます。\n",
    ),
    # --- gpu_arch_too_new_for_build
    R(
        "5090-english-no-kernel-image",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "English, question, the error inline",
        "My new RTX 5090 doesn't work: every run ends with `CUDA error: no kernel image is available for execution "
        "on the device`. Is Blackwell supported yet?\n",
    ),
    R(
        "5080-sm120-named",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "the torch warning about sm_120 said in words",
        "torch warns that NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current "
        "PyTorch installation, then crashes.\n",
    ),
    # --- gpu_arch_dropped_from_build
    R(
        "k40-too-old-reworded",
        "gpu_arch_dropped_from_build",
        "AUTOMATIC1111-stable-diffusion-webui-3003-titan-black-sm35-too-old.txt",
        "another old GPU, the message inline",
        "I'm on an old Tesla K40 and torch says: Found GPU0 Tesla K40c which is of cuda capability 3.5. PyTorch no "
        "longer supports this GPU because it is too old.\n",
    ),
    # --- driver_library_mismatch
    R(
        "nvml-mismatch-english",
        "driver_library_mismatch",
        "hpc-admin-sist-DockerMonitor-42-nvml-mismatch-after-driver-install.txt",
        "English, after an apt upgrade, no reboot yet",
        "After apt upgrade pulled a new nvidia driver, nvidia-smi says 'Failed to initialize NVML: Driver/library "
        "version mismatch' and torch can't see the GPU. I haven't rebooted yet.\n",
    ),
    R(
        "nvml-mismatch-markdown-question",
        "driver_library_mismatch",
        "hpc-admin-sist-DockerMonitor-12-nvml-mismatch-ldconfig-zh.txt",
        "heading and question form",
        "## nvidia-smi broken after update\n\nIs a reboot needed when nvidia-smi prints `Driver/library version "
        "mismatch`?\n",
    ),
    # --- tensors_on_different_devices
    R(
        "two-devices-question",
        "tensors_on_different_devices",
        "RonyAbecidan-ManTraNet-pytorch-2-two-devices-detach.txt",
        "question form, cpu first",
        "Why do I get 'Expected all tensors to be on the same device, but found at least two devices, cpu and "
        "cuda:0!' when I call model(x)? I did model.to('cuda').\n",
    ),
    # --- tensor_shape_mismatch
    R(
        "shape-mismatch-nonnative",
        "tensor_shape_mismatch",
        "talbenha-cell-tracker-gnn-8-mat1-mat2-30812x12.txt",
        "non-native English, the error inline",
        "hello i am run the train.py and it give error mat1 and mat2 shapes cannot be multiplied (64x2048 and "
        "512x10) please help\n",
    ),
    # --- cuda_device_side_assert
    R(
        "device-assert-num-classes",
        "cuda_device_side_assert",
        "open-mmlab-mmaction2-2120-device-side-assert-num-classes.txt",
        "the error after the context",
        "I changed num_classes to 5 for my own dataset and now training fails with CUDA error: device-side assert "
        "triggered\n",
    ),
    # --- cuda_illegal_memory_access
    R(
        "illegal-access-question",
        "cuda_illegal_memory_access",
        "cherubicXN-hawp-57-illegal-memory-access-extension.txt",
        "question form, custom op named",
        "Does anyone know why my custom CUDA op gives `CUDA error: an illegal memory access was encountered` on an "
        "A100 but works on a 2080?\n",
    ),
    # --- torch_import_error
    R(
        "import-libcudnn-missing",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "another library and version, fact after the error",
        "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory\n\nThis happens as soon "
        "as I import torch in a fresh venv.\n",
    ),
    # --- no_nvidia_gpu
    R(
        "amd-card-no-nvidia-driver",
        "no_nvidia_gpu",
        "NVIDIA-k8s-device-plugin-812-amd-gpu-found-no-nvidia-driver.txt",
        "AMD GPU said first, the torch message after",
        "I have a Radeon RX 7900 XTX. When I start it I get: Found no NVIDIA driver on your system.\n",
    ),
    # --- docker_no_gpu_runtime
    R(
        "docker-cuda-false",
        "docker_no_gpu_runtime",
        "zzzyuqing-DreamMat-14-docker-image-cuda-false.txt",
        "other words for the same situation",
        "Inside the docker container torch.cuda.is_available() returns False, on the host it's True. I started it "
        "with docker run -it myimage bash.\n",
    ),
    R(
        "docker-unknown-runtime",
        "docker_no_gpu_runtime",
        "D34DC3N73R-netdata-glibc-2-unknown-runtime-specified-nvidia.txt",
        "the docker message inline",
        "docker compose up fails with `Error response from daemon: unknown or invalid runtime name: nvidia`.\n",
    ),
    # --- nvidia_module_not_loaded
    R(
        "dkms-kernel-update",
        "nvidia_module_not_loaded",
        "Frogging-Family-nvidia-all-242-dkms-error-10-linux-6.10-rc1.txt",
        "other kernel, the module named",
        "After updating to kernel 6.8 the nvidia module doesn't load anymore, dkms build failed, and nvidia-smi says "
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
    ),
    # --- scheduler_no_gpu_allocated
    R(
        "sbatch-gres",
        "scheduler_no_gpu_allocated",
        "AaltoSciComp-scicomp-docs-26-sinteractive-gres-gpu-requested-node-configuration-not-available.txt",
        "sbatch instead of sinteractive, another GPU type",
        "When I submit with --gres=gpu:a100:2 I get 'sbatch: error: Batch job submission failed: Requested node "
        "configuration is not available'.\n",
    ),
    # --- mig_multiple_instances
    R(
        "mig-count-one",
        "mig_multiple_instances",
        "pytorch-102715-a100-mig-device-count-one.txt",
        "H100 instead of A100, the count said in words",
        "Our H100 is split into 7 MIG instances but torch.cuda.device_count() returns 1. How can I use all of them?\n",
    ),
    # --- compute_mode_exclusive_or_prohibited
    R(
        "busy-unavailable-exclusive",
        "compute_mode_exclusive_or_prohibited",
        "karpathy-nanoGPT-116-hpc-4-gpus-ddp-busy-or-unavailable-exclusive-process.txt",
        "the cause said after the error",
        "Getting `CUDA-capable device(s) is/are busy or unavailable` on our cluster. Turns out the GPUs are set "
        "to Exclusive_Process compute mode.\n",
    ),
    # --- fabric_manager_missing
    R(
        "fabricmanager-802",
        "fabric_manager_missing",
        "aws-samples-aws-deep-learning-ami-ubuntu-dcv-desktop-33-error-802-no-fabricmanager.txt",
        "another instance, the error number in words",
        "On a p4d.24xlarge torch.cuda.is_available() is False with 'Error 802: system not yet initialized'. "
        "nvidia-fabricmanager is not running.\n",
    ),
    # --- wsl_libcuda_problem
    R(
        "wsl-libcuda",
        "wsl_libcuda_problem",
        "facebookresearch-nougat-105-wsl-libcuda-link.txt",
        "other words, the error named",
        "On WSL2 Ubuntu I get 'Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open "
        "shared object file'. libcuda.so is in /usr/lib/wsl/lib.\n",
    ),
    # --- uvm_wedged_after_suspend
    R(
        "unknown-error-after-suspend",
        "uvm_wedged_after_suspend",
        "xingyizhou-CenterNet-933-cuda-runtime-error-30-unknown-fixed-reload-nvidia-uvm.txt",
        "suspend named, the modern torch message",
        "After my laptop wakes from sleep, torch.cuda.is_available() warns 'CUDA initialization: CUDA unknown error' "
        "and returns False until I reboot.\n",
    ),
    # --- workload_left_on_cpu
    R(
        "gpu-idle-cpu-100",
        "workload_left_on_cpu",
        "rudymohammadbali-OpenAI-Whisper-GUI-13-fp16-warning-device-gpu.txt",
        "the warning inline, the symptoms in another order",
        "GPU usage is 0% and CPU 100% when transcribing. I also see 'FP16 is not supported on CPU; using FP32 "
        "instead' although I selected cuda.\n",
    ),
    # --- gpu_memory_held_by_others
    R(
        "oom-other-process",
        "gpu_memory_held_by_others",
        "RangiLyu-nanodet-147-cuda-error-out-of-memory-other-process.txt",
        "another process named, fact before the error",
        "Another user's job is using 30 GB on GPU 0 according to nvidia-smi, so my training fails with CUDA out "
        "of memory right at the start.\n",
    ),
    # --- nccl_error_or_timeout
    R(
        "duplicate-gpu-question",
        "nccl_error_or_timeout",
        "facebookresearch-msn-24-duplicate-gpu-detected.txt",
        "question form",
        "Why does torchrun fail with 'Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000' on my "
        "2-GPU box?\n",
    ),
    # --- source_build_without_cuda
    R(
        "source-build-no-cuda",
        "source_build_without_cuda",
        "pytorch-pytorch-30944-source-build-1.4-not-compiled-with-cuda.txt",
        "another version, built with setup.py",
        "I built pytorch 2.2 from source with python setup.py develop and now get Torch not compiled with CUDA "
        "enabled, even though nvcc is installed.\n",
    ),
    # --- no_wheel_for_platform
    R(
        "wheel-not-supported-windows",
        "no_wheel_for_platform",
        "render-examples-fastai-v3-4-linux-torch-wheel-on-mac.txt",
        "Windows, another wheel",
        "pip says torch-2.0.1+cu118-cp310-cp310-linux_x86_64.whl is not a supported wheel on this platform. I'm "
        "on Windows 10.\n",
    ),
    # --- driver_does_not_support_gpu
    R(
        "legacy-gpu-installer",
        "driver_does_not_support_gpu",
        "MicrosoftDocs-azure-docs-10589-nv6-driver-390-not-supported.txt",
        "another driver version, the installer message after the story",
        "I tried to install the 550 driver on my old GTX 660 box and the installer said: You do not appear to have "
        "an NVIDIA GPU supported by the 550.54.14 NVIDIA Linux graphics driver installed in this system.\n",
    ),
    # --- dataloader_starvation
    R(
        "num-workers-zero-util",
        "dataloader_starvation",
        "NVlabs-Deep_Object_Pose-88-gpu-load-num-workers-0.txt",
        "the symptoms in other words",
        "GPU utilization jumps between 0% and 30% during training and it is slow. My DataLoader uses num_workers=0, "
        "is data loading the bottleneck?\n",
    ),
    # --- written straight into CJK prose: no space between the ASCII name and the next character
    R(
        "mac-macos-japanese-no-space",
        "macos_no_cuda_use_mps",
        "chatchat-space-Langchain-Chatchat-2990-mac-m3-not-compiled-with-cuda-use-mps-cjk.txt",
        "Japanese, 'macOSで' with no space after the OS name",
        "macOSで「Torch not compiled with CUDA enabled」というエラーが出ます\n",
    ),
    R(
        "mac-macbook-chinese",
        "macos_no_cuda_use_mps",
        "chatchat-space-Langchain-Chatchat-2990-mac-m3-not-compiled-with-cuda-use-mps-cjk.txt",
        "Chinese, MacBook Pro M3 then '上运行' with no space",
        "MacBook Pro M3上运行报错 AssertionError: Torch not compiled with CUDA enabled\n",
    ),
    R(
        "cpu-build-version-in-chinese",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "Chinese sentence, the +cpu version written right after '是' (is)",
        "显卡是RTX 4060，但是torch.cuda.is_available()返回False，torch版本是2.0.1+cpu\n",
    ),
    R(
        "cpu-build-version-cuda-none",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "no +cpu tag: torch.version.cuda said to print None",
        "cuda says False. nvidia-smi works fine. torch.version.cuda prints None\n",
    ),
    R(
        "cpu-build-spanish",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "Spanish, the version said with 'es'",
        "torch no detecta mi GPU, torch.__version__ es 2.2.0+cpu\n",
    ),
    R(
        "cpu-build-cpuonly-said",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "the conda cpuonly install told as what was run",
        "I ran conda install pytorch torchvision cpuonly -c pytorch and now torch doesn't use my GPU.\n",
    ),
    R(
        "cpu-build-pypi-windows",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "plain 'pip install torch' on Windows (PyPI's Windows torch is the CPU build)",
        "torch.cuda.is_available() gives False on my laptop with a GTX 1650. I installed torch with `pip install "
        "torch` on Windows 11.\n",
    ),
    # --- the import said in other words
    R(
        "import-as-soon-as",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "'as soon as I import torch' before the error",
        "As soon as I import torch I get OSError: libcudnn.so.8: cannot open shared object file: No such file or "
        "directory\n",
    ),
    R(
        "import-right-after",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "the error first, 'right after import torch' on the next line",
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
        "I get this right after import torch.\n",
    ),
    R(
        "import-every-time-windows",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "Windows DLL error, 'every time I import torch'",
        "Every time I import torch on Windows I get OSError: [WinError 126] The specified module could not be found. "
        'Error loading "C:\\venv\\lib\\site-packages\\torch\\lib\\c10.dll"\n',
    ),
    # --- the torch message cut or told in the user's words
    R(
        "driver-too-old-user-words",
        "driver_too_old",
        "pytorch-1564-source-build-driver-too-old-found-8000.txt",
        "'my nvidia driver is too old' in the user's words, the number kept",
        "torch says my nvidia driver is too old (found version 10020)\n",
    ),
    R(
        "driver-too-old-quoted-without-number",
        "driver_too_old",
        "nagadomi-nunif-702-driver-insufficient-cuda13.txt",
        "torch's message quoted without its '(found version N)'",
        'Error: "The NVIDIA driver on your system is too old". I have driver 470 and torch 2.3 cu121.\n',
    ),
    R(
        "oom-abbreviated",
        "cuda_out_of_memory",
        "Comfy-Org-ComfyUI-2892-oom-after-update-batch-size-changed.txt",
        "'CUDA OOM', the abbreviation users write",
        "Getting CUDA OOM with batch size 32 on a 12GB 3060, any way to reduce memory?\n",
    ),
    R(
        "oom-on-the-gpu",
        "cuda_out_of_memory",
        "bowenc0221-panoptic-deeplab-118-cuda-oom-colab-ims-per-batch.txt",
        "'OOM on the GPU', no message quoted",
        "I keep getting OOM on the GPU when I raise the batch size to 64.\n",
    ),
    R(
        "oom-out-of-vram",
        "cuda_out_of_memory",
        "Comfy-Org-ComfyUI-2892-oom-after-update-batch-size-changed.txt",
        "'runs out of VRAM' said of the card",
        "My 3060 runs out of VRAM at 1024x1024 since the last update, 512x512 still works.\n",
    ),
    R(
        "interpreter-contraction",
        "wrong_interpreter_or_kernel",
        "pytorch-pytorch-16103-notebook-other-python-env.txt",
        'the second answer as "it\'s True"',
        "In Jupyter torch.cuda.is_available() is False but in the terminal it's True with the same conda env.\n",
    ),
    # --- round 3: template headings, other languages, the message only named, answers in other notations
    R(
        "visible-devices-template",
        "cuda_visible_devices_hides_gpus",
        "Grace9994-CoMoSVC-6-cuda-visible-devices-1.txt",
        "issue template headings, an index the machine lacks",
        "### Describe the bug\nRuntimeError: No CUDA GPUs are available\n\n### Additional context\nMy "
        "launch script does `export CUDA_VISIBLE_DEVICES=3` but this machine has only 2 GPUs.\n",
    ),
    R(
        "visible-devices-count-zero",
        "cuda_visible_devices_hides_gpus",
        "KeYang8-WITT-34-no-cuda-gpus-visible-devices.txt",
        "no error: device_count() said to return 0, the -1 set in a sentence",
        "torch.cuda.device_count() returns 0 after I set CUDA_VISIBLE_DEVICES=-1 to debug something "
        "earlier in the same shell\n",
    ),
    R(
        "nvml-mismatch-chinese",
        "driver_library_mismatch",
        "hpc-admin-sist-DockerMonitor-42-nvml-mismatch-after-driver-install.txt",
        "Chinese, short, the message inline",
        "nvidia-smi 报错 Failed to initialize NVML: Driver/library version mismatch，更新驱动后没有重启\n",
    ),
    R(
        "nvml-mismatch-bold",
        "driver_library_mismatch",
        "hpc-admin-sist-DockerMonitor-42-nvml-mismatch-after-driver-install.txt",
        "bold tool name, unattended-upgrades",
        "**nvidia-smi** gives `Failed to initialize NVML: Driver/library version mismatch` after "
        "unattended-upgrades ran last night\n",
    ),
    R(
        "smi-cannot-communicate-secure-boot",
        "nvidia_module_not_loaded",
        "negativo17-nvidia-driver-75-f29-nouveau-always-loaded-nvidia-cannot-load.txt",
        "nvidia-smi's message with Secure Boot named",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. I'm on Ubuntu 22.04 "
        "with secure boot enabled.\n",
    ),
    R(
        "modprobe-fails-fedora",
        "nvidia_module_not_loaded",
        "Frogging-Family-nvidia-all-242-dkms-error-10-linux-6.10-rc1.txt",
        "another distro and kernel, modprobe named",
        "After upgrading Fedora to kernel 6.9, `modprobe nvidia` fails and nvidia-smi cannot communicate "
        "with the driver.\n",
    ),
    R(
        "amd-card-question",
        "no_nvidia_gpu",
        "oobabooga-textgen-151-amd-6900-windows-no-gpu.txt",
        "another AMD card, question form",
        "I only have an AMD Radeon RX 6700 XT, and torch.cuda.is_available() returns False. Is CUDA "
        "supported on AMD?\n",
    ),
    R(
        "intel-igpu-no-driver",
        "no_nvidia_gpu",
        "NVIDIA-k8s-device-plugin-812-amd-gpu-found-no-nvidia-driver.txt",
        "an Intel iGPU instead of AMD",
        "My laptop has Intel Iris Xe graphics only and torch says: Found no NVIDIA driver on your system\n",
    ),
    R(
        "5060ti-sm120-full-warning",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "torch's warning with the supported list",
        "NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation. The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 "
        "sm_80 sm_86 sm_90.\n",
    ),
    R(
        "5090-japanese",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "Japanese sentence around the message",
        "RTX 5090 で「no kernel image is available for execution on the device」エラーが出ます\n",
    ),
    R(
        "gtx770-too-old-said",
        "gpu_arch_dropped_from_build",
        "rupeshs-diffusionmagic-12-gtx-680-cc-3.0-too-old.txt",
        "the GPU named before the message",
        "My GTX 770 isn't supported anymore: torch warns \"PyTorch no longer supports this GPU because it "
        'is too old".\n',
    ),
    R(
        "two-devices-markdown-fence",
        "tensors_on_different_devices",
        "qingkongzhiqian-GPT2-Summary-15-input-output-indices-current-device.txt",
        "Markdown heading and a fenced block",
        "## Error\n\n```\nRuntimeError: Expected all tensors to be on the same device, but found at least "
        "two devices, cuda:0 and cpu! (when checking argument for argument index in method "
        "wrapper_CUDA__index_select)\n```\n\nhappens in predict.py\n",
    ),
    R(
        "input-weight-type",
        "tensors_on_different_devices",
        "RonyAbecidan-ManTraNet-pytorch-2-two-devices-detach.txt",
        "the other message of the same mistake",
        'When I run inference on GPU I get "Input type (torch.FloatTensor) and weight type '
        '(torch.cuda.FloatTensor) should be the same"\n',
    ),
    R(
        "shape-mismatch-spanish-question",
        "tensor_shape_mismatch",
        "talbenha-cell-tracker-gnn-8-mat1-mat2-30812x12.txt",
        "Spanish question",
        "¿Por qué me sale RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x512 and 256x10)?\n",
    ),
    R(
        "device-assert-labels",
        "cuda_device_side_assert",
        "open-mmlab-mmaction2-2120-device-side-assert-num-classes.txt",
        "the TORCH_USE_CUDA_DSA hint, labels named",
        "Training crashes with CUDA error: device-side assert triggered. Compile with `TORCH_USE_CUDA_DSA` "
        "to enable device-side assertions. My labels go from 1 to 10.\n",
    ),
    R(
        "illegal-access-chinese",
        "cuda_illegal_memory_access",
        "skhu101-GauHuman-21-merge-sort-illegal-address-cuda-11.4.txt",
        "Chinese, one GPU fails and another works",
        "我在A100上运行时报错 CUDA error: an illegal memory access was encountered，在3090上正常\n",
    ),
    R(
        "mac-m1-pro-question",
        "macos_no_cuda_use_mps",
        "dwrensha-acronymy-assistant-2-m1-not-compiled-with-cuda.txt",
        "no message: macOS and the chip named, is_available False",
        "Running on macOS Sonoma with an M1 Pro, torch.cuda.is_available() is False. How do I enable the GPU?\n",
    ),
    R(
        "mac-template-bullets",
        "macos_no_cuda_use_mps",
        "chatchat-space-Langchain-Chatchat-2990-mac-m3-not-compiled-with-cuda-use-mps-cjk.txt",
        "template headings and bullets",
        "## Environment\n- OS: macOS 14.2\n- Chip: Apple M2\n\n## Error\nAssertionError: Torch not "
        "compiled with CUDA enabled\n",
    ),
    R(
        "mig-profiles-named",
        "mig_multiple_instances",
        "pytorch-102715-a100-mig-device-count-one.txt",
        "MIG profiles named, device_count with =",
        "We enabled MIG on the A100 (3 x 2g.10gb) and torch only sees one device, device_count() = 1.\n",
    ),
    R(
        "docker-no-gpus-flag-in-brackets",
        "docker_no_gpu_runtime",
        "zzzyuqing-DreamMat-14-docker-image-cuda-false.txt",
        "the run line named with the flag said absent in brackets",
        "Started the image with plain `docker run` (no --gpus flag) and inside the container torch says "
        "CUDA is not available.\n",
    ),
    R(
        "docker-capabilities-gpu",
        "docker_no_gpu_runtime",
        "D34DC3N73R-netdata-glibc-2-unknown-runtime-specified-nvidia.txt",
        "docker's message when the toolkit is missing",
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n',
    ),
    R(
        "srun-node-configuration",
        "scheduler_no_gpu_allocated",
        "rcgsheffield-sheffield_hpc-1042-srun-gpus-per-node-requested-node-configuration-not-available.txt",
        "srun's wording, the request in brackets",
        "srun: error: Unable to allocate resources: Requested node configuration is not available (I asked "
        "for --gres=gpu:v100:4)\n",
    ),
    R(
        "import-windows-paging-file",
        "torch_import_error",
        "marella-chatdocs-8-libcudnn-so-8-after-gptq-install.txt",
        "Windows error 1455 while importing torch",
        "import torch fails on Windows with `OSError: [WinError 1455] The paging file is too small for "
        "this operation to complete. Error loading "
        '"C:\\\\env\\\\lib\\\\site-packages\\\\torch\\\\lib\\\\cudnn_cnn_infer64_8.dll"`\n',
    ),
    R(
        "import-wont-import",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        '"torch won\'t import anymore", another soname',
        "After installing bitsandbytes, torch won't import anymore: ImportError: libcudart.so.12: cannot "
        "open shared object file\n",
    ),
    R(
        "unknown-error-after-resume",
        "uvm_wedged_after_suspend",
        "xingyizhou-CenterNet-933-cuda-runtime-error-30-unknown-fixed-reload-nvidia-uvm.txt",
        "resume and nvidia_uvm named",
        "CUDA unknown error after resume from suspend on Ubuntu, torch.cuda.is_available() False until I "
        "reload nvidia_uvm\n",
    ),
    R(
        "driver-too-old-cluster-question",
        "driver_too_old",
        "pytorch-1564-source-build-driver-too-old-found-8000.txt",
        "the message, then a question about which torch",
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). I can't update "
        "the driver on the cluster, which torch should I install?\n",
    ),
    R(
        "driver-insufficient-dash",
        "driver_too_old",
        "nagadomi-nunif-702-driver-insufficient-cuda13.txt",
        "the runtime's message, versions after a dash",
        "CUDA driver version is insufficient for CUDA runtime version — I have driver 450 and installed "
        "torch 2.4 cu121\n",
    ),
    R(
        "exclusive-process-admin",
        "compute_mode_exclusive_or_prohibited",
        "BUTSpeechFIT-safe_gpu-1-sge-exclusive-process-ddp-busy.txt",
        "the cause before the message, 'all CUDA-capable devices' form",
        "Our admin set the GPUs to Exclusive Process mode, so the second DDP rank gets 'all CUDA-capable "
        "devices are busy or unavailable'\n",
    ),
    R(
        "cpu-build-uv",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "uv instead of pip",
        "I'm using uv and `uv pip install torch` gave me 2.5.1+cpu although I have an RTX 4080\n",
    ),
    R(
        "cpu-build-arrows",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "answers written with arrows",
        "torch.__version__ → '2.4.0+cpu', torch.cuda.is_available() → False, GPU: RTX 3070 Ti\n",
    ),
    R(
        "cpu-build-not-compiled-windows",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "the message, then Windows and a plain pip install",
        "Torch not compiled with CUDA enabled\n\nWindows 10, RTX 2060, installed torch with pip install "
        "torch torchvision\n",
    ),
    R(
        "cpu-build-japanese",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "Japanese, the version right after the attribute",
        "GPU版のtorchを入れたつもりですが torch.__version__ が 2.3.0+cpu になっています\n",
    ),
    # --- round 4: no message or one only named, requests and tutorials as decoys
    R(
        "cpu-build-question-switch",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "the build said in words, then a question",
        "pytorch is using the CPU version, not the CUDA one. How do I switch? I have a GTX 1080.\n",
    ),
    R(
        "cpu-build-realized",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "'I realized pip installed the cpu-only build', version in brackets",
        "I realized pip installed the cpu-only build of torch (2.2.0+cpu) on my Windows machine with an RTX 3060\n",
    ),
    R(
        "cpu-build-chinese-words",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "Chinese words only, no version",
        "安装的是CPU版本的pytorch，所以用不了显卡\n",
    ),
    R(
        "oom-chinese-vram",
        "cuda_out_of_memory",
        "hiyouga-LlamaFactory-182-oom-gpu0-cuda-visible-devices-ignored.txt",
        "Chinese '显存不足' before the message",
        "显存不足 CUDA out of memory，batch size 改成 8 也不行\n",
    ),
    R(
        "oom-out-of-memory-on-gpu",
        "cuda_out_of_memory",
        "bowenc0221-panoptic-deeplab-118-cuda-oom-colab-ims-per-batch.txt",
        "'Out of memory on GPU' as a title, no message",
        "Out of memory on GPU when training with images of 1024px, 24GB RTX 4090, batch size 16\n",
    ),
    R(
        "oom-tried-to-allocate-only",
        "cuda_out_of_memory",
        "bowenc0221-panoptic-deeplab-118-cuda-oom-colab-ims-per-batch.txt",
        "only the allocator's numbers, the prefix reworded",
        "CUDA memory error: Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total capacity; 5.12 GiB already allocated)\n",
    ),
    R(
        "smi-lsmod-empty",
        "nvidia_module_not_loaded",
        "negativo17-nvidia-driver-75-f29-nouveau-always-loaded-nvidia-cannot-load.txt",
        "lsmod said to show nothing",
        "lsmod | grep nvidia shows nothing and nvidia-smi can't communicate with the NVIDIA driver\n",
    ),
    R(
        "mac-m1-chip-words",
        "macos_no_cuda_use_mps",
        "dwrensha-acronymy-assistant-2-m1-not-compiled-with-cuda.txt",
        "'a Mac with an M1 chip'",
        "I'm on a Mac with an M1 chip. When I run the script I get Torch not compiled with CUDA enabled\n",
    ),
    R(
        "5070-upgraded",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "another 50-series card, the upgrade told first",
        "I just upgraded to an RTX 5070 and now I get no kernel image is available for execution on the device\n",
    ),
    R(
        "two-cuda-devices-dataparallel",
        "tensors_on_different_devices",
        "RonyAbecidan-ManTraNet-pytorch-2-two-devices-detach.txt",
        "two GPUs instead of GPU and CPU",
        "Expected all tensors to be on the same device, but found at least two devices, cuda:1 and "
        "cuda:0! Happens with DataParallel on 2 GPUs.\n",
    ),
    R(
        "visible-devices-dockerfile-empty",
        "cuda_visible_devices_hides_gpus",
        "Grace9994-CoMoSVC-6-cuda-visible-devices-1.txt",
        "the empty value set in a Dockerfile, said in a sentence",
        'Setting CUDA_VISIBLE_DEVICES="" in the Dockerfile made torch.cuda.is_available() return False\n',
    ),
    R(
        "docker-forgot-gpus",
        "docker_no_gpu_runtime",
        "zzzyuqing-DreamMat-14-docker-image-cuda-false.txt",
        "the flag said forgotten, after the symptoms",
        "Inside docker, nvidia-smi: command not found and torch.cuda.is_available() is False. I "
        "forgot to add --gpus all to docker run.\n",
    ),
    R(
        "import-libtorch-cuda-arrow",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "'import torch →' and torch's own library",
        "import torch → ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory\n",
    ),
    R(
        "device-assert-with-assertion",
        "cuda_device_side_assert",
        "open-mmlab-mmaction2-2120-device-side-assert-num-classes.txt",
        "the kernel's assertion line before the error",
        "Assertion `t >= 0 && t < n_classes` failed. then RuntimeError: CUDA error: device-side assert triggered\n",
    ),
    R(
        "sleep-cuinit-999",
        "uvm_wedged_after_suspend",
        "xingyizhou-CenterNet-933-cuda-runtime-error-30-unknown-fixed-reload-nvidia-uvm.txt",
        "'comes back from sleep', cuInit's number",
        "every time my laptop comes back from sleep, CUDA is broken (cuInit returns 999) until I reboot\n",
    ),
    R(
        "mismatch-auto-update",
        "driver_library_mismatch",
        "hpc-admin-sist-DockerMonitor-42-nvml-mismatch-after-driver-install.txt",
        "the message first, then an auto-update",
        "Driver/library version mismatch — nvidia-smi stopped working after the driver auto-updated\n",
    ),
    R(
        "radeon-in-brackets",
        "no_nvidia_gpu",
        "oobabooga-textgen-151-amd-6900-windows-no-gpu.txt",
        "'I don't have an NVIDIA card' with the card in brackets",
        "I don't have an NVIDIA card (Radeon RX 580), torch.cuda.is_available() returns False\n",
    ),
    R(
        "held-by-other-user",
        "gpu_memory_held_by_others",
        "RangiLyu-nanodet-147-cuda-error-out-of-memory-other-process.txt",
        "another user's process named after the error",
        "CUDA out of memory although my model is tiny: nvidia-smi shows another process from a "
        "different user using 38 GB of the 40 GB\n",
    ),
    R(
        "cpu-build-request-and-report",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "a feature request that also reports the message (counter-example of the request guard)",
        'Feature request: print a clearer message than "Torch not compiled with CUDA enabled". I get '
        "it on my Windows PC with an RTX 3060.\n",
    ),
    # --- round 5: more causes, non-native writers, figures and messages misquoted
    R(
        "fabricmanager-hgx-words",
        "fabric_manager_missing",
        "aws-samples-aws-deep-learning-ami-ubuntu-dcv-desktop-33-error-802-no-fabricmanager.txt",
        "no error number: the missing service told as the finding",
        "On our HGX H100 box torch.cuda.is_available() returns False and nvidia-smi looks fine. "
        "Turned out nvidia-fabricmanager service was not installed.\n",
    ),
    R(
        "fabricmanager-802-question",
        "fabric_manager_missing",
        "aws-samples-aws-deep-learning-ami-ubuntu-dcv-desktop-33-error-802-no-fabricmanager.txt",
        "the runtime call's number, a question",
        "cudaGetDeviceCount returned 802 (system not yet initialized) on a DGX A100 — do we need fabric manager?\n",
    ),
    R(
        "wsl-libcuda-and-ldconfig-one-line",
        "wsl_libcuda_problem",
        "facebookresearch-nougat-105-wsl-libcuda-link.txt",
        "the load failure and ldconfig's harmless warning in one sentence",
        'In WSL Ubuntu I get "libcuda.so: cannot open shared object file" and ldconfig says '
        "/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n",
    ),
    R(
        "wheel-not-supported-python",
        "no_wheel_for_platform",
        "render-examples-fastai-v3-4-linux-torch-wheel-on-mac.txt",
        "pip's ERROR prefix, another Python named",
        "ERROR: torch-2.1.0+cu121-cp311-cp311-win_amd64.whl is not a supported wheel on this "
        "platform. (I'm on Python 3.10)\n",
    ),
    R(
        "source-build-use-cuda-0",
        "source_build_without_cuda",
        "pytorch-pytorch-30944-source-build-1.4-not-compiled-with-cuda.txt",
        "the build switch named, the message after",
        'compiled pytorch from source on my Ubuntu box with USE_CUDA=0 by mistake, now "Torch not '
        'compiled with CUDA enabled"\n',
    ),
    R(
        "nccl-unhandled-system-error",
        "nccl_error_or_timeout",
        "fal-ai-community-video-diffusion-speedrun-2-nccl-shm-segment-docker-shm-size.txt",
        "NCCL's own error in a sentence, docker named",
        "NCCL error: unhandled system error, NCCL version 2.18.1 when starting torchrun with 4 GPUs inside docker\n",
    ),
    R(
        "nccl-watchdog-full",
        "nccl_error_or_timeout",
        "facebookresearch-msn-24-duplicate-gpu-detected.txt",
        "the watchdog line as printed",
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) "
        "ran for 1800000 milliseconds before timing out.\n",
    ),
    R(
        "loader-gpu-sits-at-range",
        "dataloader_starvation",
        "funcwj-ge2e-speaker-verification-3-zero-gpu-util-slow-loader.txt",
        "the figure between 'GPU' and 'utilization', a range",
        "The GPU sits at 0-10% utilization and the training is slow; data loading from the network "
        "drive seems to be the bottleneck.\n",
    ),
    R(
        "sbatch-gpus-per-node",
        "scheduler_no_gpu_allocated",
        "AaltoSciComp-scicomp-docs-26-sinteractive-gres-gpu-requested-node-configuration-not-available.txt",
        "--gpus-per-node, the reason after a dash",
        "sbatch: error: Batch job submission failed: Requested node configuration is not available — "
        "I asked for --gpus-per-node=8 on a partition with 4\n",
    ),
    R(
        "xid-79-words",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-507-falls-off-bus.txt",
        "dmesg told in a sentence",
        "dmesg shows NVRM: Xid 79, GPU has fallen off the bus, and then nvidia-smi reports no devices\n",
    ),
    R(
        "xid-48-words",
        "gpu_xid_fault",
        "bradrlaw-ai-server-27-p100-hbm-ecc-xid-48-nvml-hung-prose.txt",
        "the Xid number and its meaning in words",
        "Our A100 keeps throwing Xid 48 (double bit ECC error) and the job dies.\n",
    ),
    R(
        "legacy-340-installer",
        "driver_does_not_support_gpu",
        "MicrosoftDocs-azure-docs-10589-nv6-driver-390-not-supported.txt",
        "another branch, the installer's words",
        "NVIDIA driver 340 installer: You do not appear to have an NVIDIA GPU supported by the "
        "340.108 NVIDIA Linux graphics driver installed in this system.\n",
    ),
    R(
        "rocm-invalid-device-function",
        "rocm_gpu_unsupported_or_no_access",
        "ROCm-legacy-rocm-build-3401-hip-invalid-device-function-igpu.txt",
        "the card and ROCm version in one sentence",
        'On my RX 6600 with ROCm 6.0 I get "HIP error: invalid device function" when training.\n',
    ),
    R(
        "fp16-warning-device-cuda",
        "workload_left_on_cpu",
        "rudymohammadbali-OpenAI-Whisper-GUI-13-fp16-warning-device-gpu.txt",
        "the warning quoted, the device flag named",
        'I get "UserWarning: FP16 is not supported on CPU; using FP32 instead" although I passed '
        "--device cuda, and nvidia-smi shows nothing\n",
    ),
    R(
        "interpreter-vscode-anaconda-prompt",
        "wrong_interpreter_or_kernel",
        "pytorch-pytorch-16103-notebook-other-python-env.txt",
        "VS Code against Anaconda Prompt",
        "In VS Code torch.cuda.is_available() returns False, but running the same script from "
        "Anaconda Prompt it returns True.\n",
    ),
    R(
        "exclusive-process-smi-words",
        "compute_mode_exclusive_or_prohibited",
        "karpathy-nanoGPT-116-hpc-4-gpus-ddp-busy-or-unavailable-exclusive-process.txt",
        "the compute mode as nvidia-smi -q names it",
        "CUDA error: all CUDA-capable devices are busy or unavailable. nvidia-smi says Compute Mode: "
        "Exclusive_Process and another job is running on it.\n",
    ),
    R(
        "mig-nonnative",
        "mig_multiple_instances",
        "pytorch-102715-a100-mig-device-count-one.txt",
        "non-native English, lower case",
        "i have A100 with MIG enable, 2 instance, but torch only see 1 gpu, how to use both?\n",
    ),
    R(
        "cpu-build-nonnative",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "non-native English, lower case",
        "hello, torch.cuda.is_available() always false, my torch is 1.13.1+cpu, gpu is rtx 3060, what i do wrong?\n",
    ),
    R(
        "cpu-build-pip-list",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "pip list rows told on one line",
        "pip list: torch 2.0.0+cpu / torchvision 0.15.0+cpu — that's why my GPU isn't used.\n",
    ),
    R(
        "oom-out-of-gpu-memory",
        "cuda_out_of_memory",
        "Comfy-Org-ComfyUI-2892-oom-after-update-batch-size-changed.txt",
        "'ran out of GPU memory'",
        "ran out of GPU memory when fine-tuning llama 7b on a single 24GB card\n",
    ),
    R(
        "two-devices-no-article",
        "tensors_on_different_devices",
        "qingkongzhiqian-GPT2-Summary-15-input-output-indices-current-device.txt",
        "the message misquoted without 'the'",
        "got error: Expected all tensors to be on same device (cpu and cuda:0) when call model.generate\n",
    ),
    R(
        "driver-too-old-says",
        "driver_too_old",
        "nagadomi-nunif-702-driver-insufficient-cuda13.txt",
        "'says driver too old' with the versions",
        "torch 2.5 with cu124 says driver too old, my driver is 525.60 (CUDA 12.0)\n",
    ),
    R(
        "smi-then-dkms-line",
        "nvidia_module_not_loaded",
        "Frogging-Family-nvidia-all-242-dkms-error-10-linux-6.10-rc1.txt",
        "the message first, the kernel update on the next line",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nThis happened "
        "right after I installed a new kernel with dkms.\n",
    ),
    R(
        "mac-air-lowercase",
        "macos_no_cuda_use_mps",
        "dwrensha-acronymy-assistant-2-m1-not-compiled-with-cuda.txt",
        "'Macbook air m1' in lower case",
        'Macbook air m1: "AssertionError: Torch not compiled with CUDA enabled" when i run inference.py\n',
    ),
    R(
        "5090-torch24-plus",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "'GPU + torch version:' then the message",
        "RTX 5090 + torch 2.4: CUDA error: no kernel image is available for execution on the device. "
        "CUDA kernel errors might be asynchronously reported\n",
    ),
    R(
        "import-markdown-steps",
        "torch_import_error",
        "pytorch-pytorch-29356-torch-1.3.0-windows-wheel-missing-cublas-dll.txt",
        "an issue template's numbered steps: `import torch`, then the error",
        "## To Reproduce\n1. `import torch`\n2. observe `ImportError: DLL load failed: The specified "
        "module could not be found`\n",
    ),
    R(
        "import-bullet-prompt",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "a bullet holding the prompt",
        "- `>>> import torch`\n- `OSError: libcudnn.so.8: cannot open shared object file: No such file or directory`\n",
    ),
    # --- round 6: typos and retyped messages
    R(
        "cpu-build-typo-avaliable",
        "cpu_only_build",
        "zyddnys-manga-image-translator-210-requirements-torch-cpu-windows-cjk.txt",
        "misspelt 'is_avaliable', lower case",
        "torch.cuda.is_avaliable() return false, torch version 2.0.1+cpu, my gpu is gtx 1660\n",
    ),
    R(
        "cpu-build-typo-not-avaliable",
        "cpu_only_build",
        "chatchat-space-Langchain-Chatchat-294-requirements-installs-cpu-torch.txt",
        "'cuda not avaliable', the version quoted",
        "cuda not avaliable, torch.__version__ is '1.12.1+cpu'. RTX 2070 on windows 10\n",
    ),
    R(
        "oom-typo-memmory",
        "cuda_out_of_memory",
        "Comfy-Org-ComfyUI-2892-oom-after-update-batch-size-changed.txt",
        "'memmory' misspelt in the sentence, the message in brackets",
        "CUDA out of memmory error with batch 16 on RTX 3060 (CUDA out of memory. Tried to allocate 20.00 MiB)\n",
    ),
    R(
        "driver-too-old-number-first",
        "driver_too_old",
        "pytorch-1564-source-build-driver-too-old-found-8000.txt",
        "the number before the message",
        'found version 11040 — "The NVIDIA driver on your system is too old" after pip install torch\n',
    ),
    R(
        "smi-couldnt-no-apostrophe",
        "nvidia_module_not_loaded",
        "negativo17-nvidia-driver-75-f29-nouveau-always-loaded-nvidia-cannot-load.txt",
        "'couldnt' without the apostrophe",
        "nvidia-smi: NVIDIA-SMI has failed because it couldnt communicate with the NVIDIA driver\n",
    ),
    R(
        "visible-devices-empty-backticks",
        "cuda_visible_devices_hides_gpus",
        "Grace9994-CoMoSVC-6-cuda-visible-devices-1.txt",
        "the empty value in backticks in a sentence",
        'I have `CUDA_VISIBLE_DEVICES=""` in my env and torch.cuda.is_available() is False\n',
    ),
    R(
        "sm120-card-in-brackets",
        "gpu_arch_too_new_for_build",
        "jianchang512-parakeet-api-5-rtx5090-no-kernel-image.txt",
        "only the warning's tail, the card in brackets",
        "sm_120 is not compatible with the current PyTorch installation (RTX 5060)\n",
    ),
    R(
        "two-devices-lower-case",
        "tensors_on_different_devices",
        "RonyAbecidan-ManTraNet-pytorch-2-two-devices-detach.txt",
        "the message retyped in lower case without its '!'",
        "expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu\n",
    ),
    R(
        "import-winerror-127",
        "torch_import_error",
        "ChrisAllenMing-GPA-detection-24-import-torch-libcudart-so-9-0-pytorch-0-4-1.txt",
        "'when importing torch:' then WinError 127",
        "when importing torch: OSError: [WinError 127] The specified procedure could not be found. "
        'Error loading "...\\\\torch\\\\lib\\\\caffe2_nvrtc.dll"\n',
    ),
    # --- the GPU named by its model or as the card, not as "GPU"
    R(
        "cpu-flag-card-unused-by-model",
        "workload_left_on_cpu",
        "rudymohammadbali-OpenAI-Whisper-GUI-13-fp16-warning-device-gpu.txt",
        "the card named by model ('my RTX 3060 isn't used'), the CPU flag in the launch line",
        "I launch ComfyUI with python main.py --cpu and my RTX 3060 isn't used at all\n",
    ),
]

DECOYS = [
    Decoy(
        "solved-cpu-build",
        "a solved problem, told after it was fixed",
        "Fixed: I reinstalled from the cu121 index and torch.cuda.is_available() now returns True on my 4090. "
        "Thanks!\n",
    ),
    Decoy(
        "docs-question-oom",
        "a question about the docs, no error happened",
        "Feature request: could the README explain how to pick a batch size so people don't hit out of memory "
        "errors on 8 GB GPUs?\n",
    ),
    Decoy(
        "works-on-gpu",
        "a healthy setup, nvidia-smi and torch both fine",
        "My RTX 3090 is detected fine, torch.cuda.is_available() is True and training uses 95% of the GPU.\n",
    ),
    Decoy(
        "another-machine-no-gpu",
        "no GPU said of another machine",
        "The login node has no GPU, that's expected; on the compute node torch sees all 4 A100s.\n",
    ),
    Decoy(
        "mac-question-docs",
        "a question about Apple support, nothing failed",
        "Does this project support Apple Silicon via MPS, or is an NVIDIA GPU required?\n",
    ),
    Decoy(
        "visible-devices-usage",
        "CUDA_VISIBLE_DEVICES used on purpose, all fine",
        "I use CUDA_VISIBLE_DEVICES=0,1 to run two experiments side by side, it works great.\n",
    ),
    Decoy(
        "driver-updated-ok",
        "a driver update that went fine",
        "Updated the NVIDIA driver to 560 yesterday, rebooted, nvidia-smi shows the GPU and everything works.\n",
    ),
    Decoy(
        "cpu-on-purpose",
        "CPU inference chosen on purpose",
        "We deploy the model on CPU-only servers on purpose and install the +cpu torch wheel (no GPU there); is ONNX "
        "export supported?\n",
    ),
    Decoy(
        "import-works-other-library",
        "import torch said to work; the loader error is another library's",
        "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
        "Every time I import torch it works fine, the error comes from the ctranslate2 backend later.\n",
    ),
    Decoy(
        "cuda-none-tested-in-code",
        "torch.version.cuda tested in pasted code, not reported as None",
        "if torch.version.cuda is None: print('cpu build')\nMy RTX 3090 trains fine with this script.\n",
    ),
    Decoy(
        "cuda-none-question",
        "torch.version.cuda None asked about, not stated",
        "Does torch.version.cuda return None on a CPU build? My RTX 3090 build prints 12.1.\n",
    ),
    Decoy(
        "mac-japanese-works",
        "a Mac named in Japanese prose, MPS working, no CUDA failure",
        "M2 MacでMPSを使って学習できました。torch.backends.mps.is_available() は True です。\n",
    ),
    Decoy(
        "driver-too-old-conditional",
        "'if the driver is too old' as advice, the GPU working",
        "If the driver is too old, update it from nvidia.com first. My RTX 3090 works fine with torch 2.3.\n",
    ),
    Decoy(
        "driver-not-too-old",
        "the driver said not to be too old",
        "The driver is not too old, it is 550, and torch.cuda.is_available() is True.\n",
    ),
    Decoy(
        "host-oom-killer",
        "the kernel's OOM killer (host RAM), the GPU fine",
        "The process was killed by the OOM killer while loading the dataset; the GPU is fine and "
        "torch.cuda.is_available() is True.\n",
        ("cuda_out_of_memory",),
    ),
    Decoy(
        "interpreter-before-after",
        "a before/after story in one place, not two interpreters",
        "In the terminal torch.cuda.is_available() was False. After reinstalling torch with cu121 it's True.\n",
    ),
    Decoy(
        "solved-cpu-build-thanks",
        "a solved problem: thanks after the fix",
        'My 4090 works great now after I installed the cu124 wheel, thanks for the help with the "+cpu" problem!\n',
        (),
    ),
    Decoy(
        "gpu-hours",
        "'out of GPU hours': a quota, not a failure",
        "We ran out of GPU hours on the cluster this month, so training will resume next week.\n",
        ("cuda_out_of_memory",),
    ),
    Decoy(
        "colleague-slower",
        "a tuning question between two working machines",
        "Works on my colleague's machine with a 3090; on mine (also a 3090) training is 20% slower, any "
        "tips on tuning?\n",
        (),
    ),
    Decoy(
        "two-gpus-question",
        "a healthy GPU and a how-to question",
        "nvidia-smi shows my RTX 3080 and torch.cuda.is_available() returns True, but I'd like to know how "
        "to use two GPUs.\n",
        (),
    ),
    Decoy(
        "docker-flag-given",
        "the GPU given on the run line; the flag's absence only as an aside",
        "docker run --gpus all works. Without --gpus the container uses the CPU, as expected.\n",
        ("docker_no_gpu_runtime",),
    ),
    Decoy(
        "device-count-two",
        "device_count() non-zero",
        "torch.cuda.device_count() returns 2 with CUDA_VISIBLE_DEVICES=0,1\n",
        (),
    ),
    Decoy(
        "device-count-question",
        "device_count() 0 only asked about",
        "Does device_count() return 0 when CUDA_VISIBLE_DEVICES=-1 is set? Just checking the docs, my GPUs work.\n",
        (),
    ),
    Decoy(
        "how-to-check-used",
        "a healthy GPU and a how-to question",
        "How do I check if my GPU is used? torch.cuda.is_available() returns True on my RTX 3060.\n",
        (),
    ),
    Decoy(
        "tutorial-oom",
        "a tutorial about the error, nothing failing",
        "I'm writing a tutorial that explains CUDA out of memory errors and how to fix them with "
        "gradient checkpointing.\n",
        (),
    ),
    Decoy(
        "ci-cpu-wheel",
        "the CPU wheel on a GPU-less CI on purpose, the GPU works locally",
        "Our CI has no GPU, so we install the +cpu wheel there on purpose; locally my RTX 4090 works.\n",
        (),
    ),
    Decoy(
        "feature-request-message",
        "a message quoted in a feature request",
        'Feature request: print a clearer message than "Torch not compiled with CUDA enabled" when '
        "the CPU build is installed.\n",
        ("cpu_only_build",),
    ),
    Decoy(
        "docs-faq-message",
        "a message quoted in a docs request",
        'Documentation: the FAQ should mention that "Torch not compiled with CUDA enabled" means you '
        "installed the CPU build.\n",
        (),
    ),
    Decoy(
        "before-after-solved",
        "a before/after story, solved",
        "Before: torch.cuda.is_available() False. After reinstalling from the cu121 index: True. Solved, closing.\n",
        (),
    ),
    Decoy(
        "docs-gpus-all-done",
        "the docs' flag used, the GPU listed",
        "The docs say `docker run --gpus all`; I did that and nvidia-smi inside the container lists my A100.\n",
        (),
    ),
    Decoy(
        "util-100-normal",
        "a healthy GPU at full load",
        "Is it normal that GPU utilization is 100% during training on my RTX 3090? Everything works.\n",
        (),
    ),
    Decoy(
        "oom-no-more",
        "out of memory said to be gone",
        "No more out of memory on the GPU since I lowered the batch size, thanks!\n",
        ("cuda_out_of_memory",),
    ),
    Decoy(
        "mig-docs-wish",
        "two working GPUs and a docs wish",
        "We tested on an A100 and H100, both GPUs work. Docs for MIG would be nice though.\n",
        (),
    ),
    Decoy(
        "no-kernel-image-fixed",
        "the arch error said fixed by an upgrade",
        'Torch 2.3 fixed the "no kernel image is available" issue for us, thanks!\n',
        (),
    ),
    Decoy(
        "reading-code-elsewhere",
        "works on a server; only reading code here",
        "I run the same code on a server with 4 V100 GPUs and there it works; here on my laptop I'm just "
        "reading the code.\n",
        (),
    ),
    Decoy(
        "5090-buy-question",
        "a purchase question",
        "Does anyone know if the RTX 5090 is supported in torch 2.7? Planning to buy one.\n",
        (),
    ),
    Decoy(
        "sharing-working-setup",
        "a working setup shared",
        "nvidia-smi works and shows CUDA Version: 12.4, torch 2.3.1+cu121 sees the GPU. Just sharing "
        "my working setup.\n",
        (),
    ),
    Decoy(
        "util-high-loader-fine",
        "a busy GPU and fast loading",
        "The GPU sits at 100% utilization; data loading is fine.\n",
        ("dataloader_starvation",),
    ),
    Decoy(
        "driver-too-old-asked",
        "'says driver is too old?' asked and answered no",
        "nvidia-smi says driver is too old? no, it says 550 and torch.cuda.is_available() is True\n",
        ("driver_too_old",),
    ),
    Decoy(
        "wsl-ldconfig-only",
        "WSL's ldconfig warning alone, CUDA working",
        "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic "
        "link\ntorch.cuda.is_available() is True on my WSL2 with RTX 3080\n",
        ("wsl_libcuda_problem",),
    ),
    Decoy(
        "import-step-works-other-fails",
        "a step list where torch imports and another package's DLL fails",
        "- `import torch` works fine\n- `import onnxruntime` gives ImportError: DLL load failed: The "
        "specified module could not be found\n",
        ("torch_import_error",),
    ),
    Decoy(
        "cpu-flag-card-busy",
        "the same launch line with the card said to be busy",
        "I launch ComfyUI with python main.py --cpu and my RTX 3060 is used at 100%, all good\n",
        ("workload_left_on_cpu",),
    ),
]


@pytest.mark.parametrize("retelling", RETELLINGS, ids=[r.name for r in RETELLINGS])
def test_the_same_cause_in_another_users_words_comes_first(retelling: Retelling) -> None:
    findings = load_text(retelling.text).findings
    assert findings, f"nothing read ({retelling.why})"
    assert findings[0].id == retelling.expect, (
        f"{retelling.why}: first {[f.id for f in findings[:3]]}, expected {retelling.expect} (as in {retelling.base})"
    )


@pytest.mark.parametrize("decoy", DECOYS, ids=[d.name for d in DECOYS])
def test_the_same_words_in_a_healthy_context_claim_no_error(decoy: Decoy) -> None:
    findings = load_text(decoy.text).findings
    assert not [f.id for f in findings if f.severity is Severity.ERROR], decoy.why
    assert not {f.id for f in findings} & set(decoy.banned), decoy.why


# Retellings still missed, kept so that a fix shows (strict: one that starts passing must move to RETELLINGS).
STILL_MISSED = [
    R(
        "mac-typo-complied",
        "macos_no_cuda_use_mps",
        "dwrensha-acronymy-assistant-2-m1-not-compiled-with-cuda.txt",
        "torch's message retyped as 'not complied': no reader takes a misspelt message, and no public thread showed "
        "this typo to be common enough to read",
        "M2 Pro MacBook: Torch not complied with CUDA enabled (AssertionError)\n",
    ),
]


@pytest.mark.xfail(strict=True, reason="a known miss: see the case's why")
@pytest.mark.parametrize("retelling", STILL_MISSED, ids=[r.name for r in STILL_MISSED])
def test_known_misses_stay_visible(retelling: Retelling) -> None:
    findings = load_text(retelling.text).findings
    assert findings and findings[0].id == retelling.expect, retelling.why


STILL_CLAIMED = [
    Decoy(
        "old-laptop-message",
        "torch's no-driver message said of another (old) machine, the current one working: the other-machine guard "
        "(ingest/other_machine.py) does not yet cover a message quoted from that machine, so driver guesses remain",
        "On my old laptop torch said Found no NVIDIA driver on your system, but on my new desktop with an RTX 4070 "
        "everything works.\n",
        ("no_nvidia_driver", "nvidia_module_not_loaded"),
    ),
]


@pytest.mark.xfail(strict=True, reason="a known claim on a decoy: see the case's why")
@pytest.mark.parametrize("decoy", STILL_CLAIMED, ids=[d.name for d in STILL_CLAIMED])
def test_known_claims_stay_visible(decoy: Decoy) -> None:
    findings = load_text(decoy.text).findings
    assert not {f.id for f in findings if f.severity is not Severity.INFO} & set(decoy.banned), decoy.why


@pytest.mark.parametrize(
    ("sentence", "unused"),
    [
        ("my 3090 isn't detected", True),
        ("my RTX 3090 isn't detected by torch", True),
        ("pytorch doesn't see my 4090 on windows 11", True),
        ("torch can't find the graphics card", True),
        ("the GTX 1660 is not recognized", True),
        ("my RTX 3090 is detected fine", False),
        ("the RTX 3060 is used at 100%", False),
        ("my 3090 is found by nvidia-smi", False),
        ("I don't see 3090 prices dropping", False),
    ],
)
def test_the_gpu_said_unused_by_its_model_name(sentence: str, unused: bool) -> None:
    """The user's GPU named by model or as the card reads like "the GPU"; a card said to work, or a number that is no
    card of theirs, does not."""
    assert says_gpu_unused([sentence]) is unused
