"""Fresh-eyes review of round 18 (issue #14): the readers of torch's DLL-loading frames, conda's CPU selector rows,
a found process holding the GPU's memory, the 'No module named torch._C' row and the narrowed torch_not_installed
pattern (fx20-user), and the UVM module class, WSL 2's kernel name alone, nouveau without compute and asked-about
messages (fx20-sys), run on realistic synthetic texts they must not claim and on other wordings of the same class they
must read.
"""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _claims(text: str) -> list[str]:
    """The ids a text claims (a verdict or a possible cause; an info note is no claim)."""
    return [f.id for f in load_text(text).findings if f.severity is not Severity.INFO]


OOM = "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 7.79 GiB total capacity)\n"

MUST_NOT_CLAIM = [
    # (reason, text, id that must not be claimed)
    (
        "another package's DLL (torchaudio's own library through torch.ops.load_library), torch itself works",
        "torch imports fine and torch.cuda.is_available() is True, but torchaudio fails:\n"
        "Traceback (most recent call last):\n"
        '  File "C:\\Python311\\Lib\\site-packages\\torchaudio\\_extension\\utils.py", line 60, in _load_lib\n'
        "    torch.ops.load_library(path)\n"
        '  File "C:\\Python311\\Lib\\site-packages\\torch\\_ops.py", line 1295, in load_library\n'
        "    ctypes.CDLL(path)\n"
        '  File "C:\\Python311\\Lib\\ctypes\\__init__.py", line 376, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: [WinError 127] The specified procedure could not be found\n",
        "torch_import_error",
    ),
    (
        "the user's own ctypes load of their own DLL, with torch working",
        "torch works (cuda available True, RTX 3080), but my own plugin fails to load:\n"
        "Traceback (most recent call last):\n"
        '  File "C:\\work\\app\\main.py", line 12, in <module>\n'
        '    lib = ctypes.CDLL(r"C:\\work\\app\\bin\\mycuda_kernels.dll")\n'
        '  File "C:\\Python310\\lib\\ctypes\\__init__.py", line 374, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: [WinError 126] The specified module could not be found\n",
        "torch_import_error",
    ),
    (
        "'No module named torch._C' from inside a pytorch source checkout: the checkout shadows torch, reinstalling "
        "would not help",
        '(base) user@box:~/src/pytorch$ python -c "import torch"\n'
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/home/user/src/pytorch/torch/__init__.py", line 290, in <module>\n'
        "    from torch._C import *  # noqa: F403\n"
        "ModuleNotFoundError: No module named 'torch._C'\n",
        "torch_import_error",
    ),
    (
        "the torch._C message only quoted from the docs as a condition, the user's problem is speed",
        "Quick question: the docs for building from source say that if you see \"No module named 'torch._C'\" you "
        "probably ran python from inside the pytorch checkout. My issue is that training is slow, nvidia-smi shows "
        "30% utilization with num_workers=0.\n",
        "torch_import_error",
    ),
    (
        "a submodule of torch._C missing is a build without that feature, not a broken install",
        "ModuleNotFoundError: No module named 'torch._C._distributed_c10d'; 'torch._C' is not a package\n",
        "torch_import_error",
    ),
    (
        "a CPU-only conda env on a laptop without an NVIDIA GPU, asking about speed",
        "I'm on a ThinkPad X1 Carbon (Intel Iris Xe, no NVIDIA GPU) and installed pytorch with cpuonly. Training a "
        "small MLP takes 40s per epoch, can I speed it up with more threads?\n"
        "cpuonly                   2.0                           0    pytorch\n"
        "pytorch                   2.1.0               py3.10_cpu_0    pytorch\n"
        "pytorch-mutex             1.0                         cpu    pytorch\n",
        "cpu_only_build",
    ),
    (
        "pytorch-mutex cpu on a Mac: every macOS build is the 'cpu' variant and MPS lives in it",
        "MacBook Pro M2. How do I make torch use MPS? torch.backends.mps.is_available() returns False.\n"
        "# packages in environment at /Users/kim/miniconda3/envs/ml:\n"
        "pytorch                   2.0.1                   py3.10_0    pytorch\n"
        "pytorch-mutex             1.0                         cpu    pytorch\n",
        "cpu_only_build",
    ),
    (
        "a CUDA conda env in collect_env's [conda] rows",
        "PyTorch version: 2.3.0\nCUDA used to build PyTorch: 12.1\nIs CUDA available: True\n"
        "[conda] pytorch                   2.3.0           py3.11_cuda12.1_cudnn8.9.2_0    pytorch\n"
        "[conda] pytorch-mutex             1.0                        cuda    pytorch\n",
        "cpu_only_build",
    ),
    (
        "the process holding the memory is the notebook kernel the job itself runs in",
        OOM + "In nvidia-smi there is one process taking up all the memory, it's the jupyter kernel I'm running "
        "this notebook in.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "the process is the user's own training script (batch too large), named after the fact",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of "
        "23.69 GiB of which 3.1 GiB is free.\n"
        "nvidia-smi: one python process using almost all the memory, which is just my own training script.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "the same in Chinese: it is the user's own training script",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        "nvidia-smi 里 python进程 把显存全占满了，就是我自己的那个训练脚本，batch size 太大了吗？\n",
        "gpu_memory_held_by_others",
    ),
    (
        "quoted docs, a condition and a question: nothing was seen",
        'From the docs: "If a process uses all the memory, other processes on the same GPU will fail." How do I '
        "limit one process to half the memory?\n",
        "gpu_memory_held_by_others",
    ),
    (
        "the machine's RAM in htop (a DataLoader worker killed), not GPU memory",
        "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.\n"
        "htop shows a python process using almost all the memory (62 of 64 GB RAM) when num_workers=8.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "a CUDA OOM of the job's own, and RAM in htop beside it: the RAM hog is not what holds the GPU",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 0; 11.00 GiB total "
        "capacity; 9.10 GiB already allocated; 200 MiB free; 9.50 GiB reserved in total by PyTorch)\n"
        "Also htop shows a process using almost all the memory of the machine, a dataloader worker, 30 GB RSS.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "the same words about another GPU: a process fills GPU 1, the job ran out on GPU 0",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of "
        "23.65 GiB of which 6.2 GiB is free. Including non-PyTorch memory, this process has 17.4 GiB memory in use.\n"
        "On GPU 1 there is a process called vllm taking all the memory, but I run on GPU 0 which only has my job.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "a process denied before it is named: nvidia-smi shows the GPU empty before the job",
        OOM + "nvidia-smi: there isn't a process using all the memory, only 300MiB used before I start.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "the same denial in Chinese: no process found filling the VRAM",
        OOM + "没有发现有进程占满显存，nvidia-smi 显示只用了 300MiB\n",
        "gpu_memory_held_by_others",
    ),
    (
        "Chinese: Task Manager's RAM (内存, RAM 16G), no GPU error",
        "训练很慢，任务管理器里有个进程占用了几乎全部内存（RAM 16G），和GPU有关吗？\n",
        "gpu_memory_held_by_others",
    ),
    (
        "WSL 2 healthy: dxgkrnl's Ioctl-failed probe lines asked about by someone whose training runs",
        "$ uname -r\n5.15.153.1-microsoft-standard-WSL2\n$ dmesg | grep dxg\n"
        "[    0.612] dxgk: dxgkio_query_adapter_info: Ioctl failed: -22\n"
        "[    0.640] dxgk: dxgkio_is_feature_enabled: Ioctl failed: -22\n"
        "Are these errors something to worry about? torch.cuda.is_available() returns True and training runs at "
        "full speed.\n",
        "wsl_libcuda_problem",
    ),
    (
        "a UVM module that refuses to reload after a resume is the sleep's (uvm_wedged_after_suspend), not a module "
        "never loaded",
        "After waking from suspend CUDA is broken (cuda runtime error (999) : unknown error). I tried to reload uvm:\n"
        "$ sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm\n"
        "modprobe: ERROR: could not insert 'nvidia_uvm': Input/output error\n",
        "nvidia_module_not_loaded",
    ),
    (
        "nouveau driving the card of someone who only games and uses no CUDA",
        "01:00.0 VGA compatible controller: NVIDIA Corporation GA106 [GeForce RTX 3060] (rev a1)\n"
        "\tKernel driver in use: nouveau\n"
        "I don't use CUDA, just gaming on Fedora. Should I switch to the proprietary driver for better FPS?\n",
        "nvidia_module_not_loaded",
    ),
    (
        "a message asked about from a colleague's log by someone whose machine works",
        'What does "Failed to initialize NVML: Driver/library version mismatch" mean? I saw it in a colleague\'s '
        "log. On my machine everything works.\n",
        "driver_library_mismatch",
    ),
    (
        "Python 2 'No module named torchvision' is not torch missing",
        "$ python2 train.py\nImportError: No module named torchvision\n",
        "torch_not_installed",
    ),
]


@pytest.mark.parametrize(("reason", "text", "absent"), MUST_NOT_CLAIM, ids=[c[0][:60] for c in MUST_NOT_CLAIM])
def test_round18_reader_does_not_claim(reason: str, text: str, absent: str) -> None:
    assert absent not in _claims(text), reason


MUST_CLAIM = [
    # (reason, text, id that must be claimed)
    (
        "torch 1.5's bare WinError from its glob-and-CDLL loop, a non-English Windows message",
        "Windows 10, pip install torch==1.5.0, python 3.7\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "D:\\Anaconda3\\envs\\py37\\lib\\site-packages\\torch\\__init__.py", line 81, in <module>\n'
        "    ctypes.CDLL(dll)\n"
        '  File "D:\\Anaconda3\\envs\\py37\\lib\\ctypes\\__init__.py", line 364, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: [WinError 126] Не найден указанный модуль\n",
        "torch_import_error",
    ),
    (
        "torch >= 1.6 'raise err' with the 'Error loading' tail cut off by the user",
        "Traceback (most recent call last):\n"
        '  File "C:\\Users\\me\\Desktop\\app\\main.py", line 5, in <module>\n'
        "    import torch\n"
        '  File "C:\\Users\\me\\Desktop\\app\\.venv\\Lib\\site-packages\\torch\\__init__.py", line 139, in <module>\n'
        "    raise err\n"
        "OSError: [WinError 126] The specified module could not be found.\n",
        "torch_import_error",
    ),
    (
        "IPython's traceback headers, WinError 193 (a 32-bit DLL in a 64-bit process)",
        "OSError                                   Traceback (most recent call last)\n"
        "<ipython-input-1-eb42ca6e4af3> in <module>\n"
        "----> 1 import torch\n\n"
        "~\\anaconda3\\envs\\t\\lib\\site-packages\\torch\\__init__.py in <module>\n"
        "---> 81         ctypes.CDLL(dll)\n\n"
        "~\\anaconda3\\envs\\t\\lib\\ctypes\\__init__.py in __init__(self, name, mode, handle, use_errno)\n"
        "--> 364             self._handle = _dlopen(self._name, mode)\n\n"
        "OSError: [WinError 193] %1 is not a valid Win32 application\n",
        "torch_import_error",
    ),
    (
        "torch._C missing from an installed torch after an interrupted pip",
        "After pip install got killed halfway I get this:\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/venv/lib/python3.11/site-packages/torch/__init__.py", line 237, in <module>\n'
        "    from torch._C import *  # noqa: F403\n"
        "ModuleNotFoundError: No module named 'torch._C'\n",
        "torch_import_error",
    ),
    (
        "Python 2's unquoted form of the same: a broken torch, not torch missing",
        '  File "/usr/local/lib/python2.7/dist-packages/torch/__init__.py", line 53, in <module>\n'
        "    from torch._C import *\nImportError: No module named torch._C\n",
        "torch_import_error",
    ),
    (
        "a 'don't get it' about another folder earlier on the line does not suppose the message that follows",
        "When I run from my home dir I don't get it, but in my project folder I get No module named 'torch._C' right "
        "away\n",
        "torch_import_error",
    ),
    (
        "Python 2's 'No module named torch.cuda' is torch missing (a submodule of an absent package)",
        '$ python2 -c "import torch.cuda"\nImportError: No module named torch.cuda\n',
        "torch_not_installed",
    ),
    (
        "the message retyped with a full stop after it",
        "ImportError: No module named torch.\n",
        "torch_not_installed",
    ),
    (
        "collect_env's [conda] rows of a CPU env, on a machine with an NVIDIA driver",
        "PyTorch version: 2.3.0\nCUDA used to build PyTorch: None\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
        "Is CUDA available: False\nNvidia driver version: 550.54.14\n"
        "[conda] pytorch                   2.3.0               py3.11_cpu_0    pytorch\n"
        "[conda] pytorch-mutex             1.0                        cpu    pytorch\n",
        "cpu_only_build",
    ),
    (
        "anaconda's old _pytorch_select cpu_0 on a GPU instance",
        "GPU: Tesla K80 on an AWS p2.xlarge; torch.cuda.is_available() returns False.\n"
        "_pytorch_select           0.1                       cpu_0\n",
        "cpu_only_build",
    ),
    (
        "some unknown process hogging most of the VRAM, another wording",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of "
        "15.77 GiB of which 12.44 MiB is free.\n"
        "Looking at nvidia-smi, some unknown process is hogging most of the VRAM (15.2 GiB), "
        "I don't know what it is.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "a run of the user's own they forgot is another process (the catalogue names 'another training run')",
        OOM + "nvidia-smi shows a python process using almost all the memory — that's my other run from an hour ago, "
        "I forgot to stop it.\n",
        "gpu_memory_held_by_others",
    ),
    (
        "Chinese: a process found eating all the VRAM, 'not my own process' (a denial of ownership, still read)",
        "RuntimeError: CUDA out of memory. Tried to allocate 100.00 MiB\n"
        "发现某个进程把显存吃光了，不是我自己的进程，kill 掉就好了吗？\n",
        "gpu_memory_held_by_others",
    ),
]


MUST_CLAIM += [
    (
        "WSL 2's kernel name beside the user's words that PyTorch does not see the GPU (not a healthy machine)",
        "Linux DESKTOP-1 5.15.133.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n"
        "I can't get PyTorch to see my RTX 4070 in WSL, CUDA just isn't detected.\n",
        "wsl_libcuda_problem",
    ),
    (
        "WSL 2's kernel name and is_available() False",
        "$ uname -r\n5.15.153.1-microsoft-standard-WSL2\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n",
        "wsl_libcuda_problem",
    ),
    (
        "the UVM module file missing after a kernel update is the module class, not a sleep",
        "After the kernel update to 6.5.0-15 CUDA stopped working:\n$ sudo modprobe nvidia-uvm\n"
        "modprobe: FATAL: Module nvidia-uvm not found in directory /lib/modules/6.5.0-15-generic\n",
        "nvidia_module_not_loaded",
    ),
    (
        "after a resume, the UVM module in use and CUDA's unknown error: the sleep's",
        "Ubuntu 22.04, RTX 3070 laptop. After resuming from suspend, torch.cuda.is_available() is False:\n"
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, "
        "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be "
        "zero.\n$ sudo rmmod nvidia_uvm\nrmmod: ERROR: Module nvidia_uvm is in use\n",
        "uvm_wedged_after_suspend",
    ),
    (
        "nouveau holding the card of someone whose CUDA fails today",
        "01:00.0 VGA compatible controller: NVIDIA Corporation GA106 [GeForce RTX 3060] (rev a1)\n"
        "\tKernel driver in use: nouveau\n"
        "I don't use CUDA often, but today torch.cuda.is_available() is False and I need it for a course.\n",
        "nvidia_module_not_loaded",
    ),
    (
        "'how do I fix X?' reports X, even from someone for whom it works on another PC",
        'How do I fix "Failed to initialize NVML: Driver/library version mismatch"? It works on my other PC.\n',
        "driver_library_mismatch",
    ),
]


@pytest.mark.parametrize(("reason", "text", "present"), MUST_CLAIM, ids=[c[0][:60] for c in MUST_CLAIM])
def test_round18_reader_claims_its_class(reason: str, text: str, present: str) -> None:
    assert present in _claims(text), reason


def test_a_lone_pytorch_version_line_in_prose_is_not_a_collect_env() -> None:
    """'Pytorch version: 0.3.0' under a traceback is how people state their version; the text stays an error text,
    while the same line beside another collect_env field (a hand-filled template) is still read as one."""
    prose = (
        "With cudnn.benchmark on, a 3D network fails:\n"
        "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at THCStorage.cu:66\n"
        "Pytorch version: `0.3.0.post4`\n"
    )
    report = load_text(prose)
    assert report.meta["source"] == "error_text"
    assert report.findings[0].id == "cuda_illegal_memory_access"
    template = "- Platform: macOS-14.4-x86_64-i386-64bit\n- Python version: 3.11.9\n- PyTorch version: 2.2.2\n"
    assert load_text(template).meta["source"] == "collect_env"
