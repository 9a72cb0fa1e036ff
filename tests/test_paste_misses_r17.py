"""Round 17 (issue #14): classes read from their sources, each with a synthetic text that must be read and a
counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ---- nouveau's own failure messages on the NVIDIA GPU (drivers/gpu/drm/nouveau nvkm_error lines) ------------------


@pytest.mark.parametrize(
    "text",
    [
        "$ dmesg | grep -i nouveau\n"
        "[    4.210000] nouveau 0000:02:00.0: unknown chipset (172000a1)\n"
        "[    4.210100] nouveau: probe of 0000:02:00.0 failed with error -12\n",
        "[   12.5] nouveau 0000:0a:00.0: pmu: init failed, -22\n"
        "[   12.6] nouveau 0000:0a:00.0: fifo: SCHED_ERROR 0a []\n",
        "kernel: nouveau 0000:65:00.0: gsp: init failed, -110\n"
        "kernel: nouveau 0000:65:00.0: probe with driver nouveau failed with error -110\n",
    ],
)
def test_nouveau_failing_on_the_gpu_is_module_not_loaded(text: str) -> None:
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


@pytest.mark.parametrize(
    "text",
    [
        # nouveau failed early, then NVIDIA's module loaded and drives the card
        "[    4.2] nouveau 0000:02:00.0: gr: init failed, -110\n"
        "[    9.8] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n",
        # an other driver's failure line in the same form is not nouveau's
        "[    4.2] amdgpu 0000:03:00.0: gfx: init failed, -110\n"
        "[    4.3] amdgpu: probe of 0000:03:00.0 failed with error -110\n"
        "my GPU is not used\n",
    ],
)
def test_nouveau_without_failure_or_with_nvidia_running_does_not_fire(text: str) -> None:
    assert "nvidia_module_not_loaded" not in _ids(text)


# ---- the topic test: a Python file name glued to Chinese text (no spaces) still shows a Python program ------------


def test_python_file_name_inside_chinese_text_is_about_the_topic_and_claims_nothing() -> None:
    text = "我运行prepare_data.py和train_net.py都没有问题,但是训练时报错:KeyError 出现在loader.py第12行.\n请问怎么办?\n"
    assert _ids(text) == []


def test_text_without_any_python_sign_is_still_refused() -> None:
    from gpuassist.ingest.text import UnreadableInput

    with pytest.raises(UnreadableInput):
        load_text("我买了苹果和香蕉,网站是www.tienda.com.py上面的.\n请问怎么办?\n")


# ---- CUDA_VISIBLE_DEVICES set and ignored: every GPU still used (set after CUDA init or overwritten; pytorch#9158) --


@pytest.mark.parametrize(
    "text",
    [
        "I launch with CUDA_VISIBLE_DEVICES=2 python train.py --gpu 2 but the job still occupies all 8 GPUs.\n",
        "export CUDA_VISIBLE_DEVICES=1\npython main.py\ntorch.cuda.device_count() still returns 4, why?\n",
        "In my script I set os.environ['CUDA_VISIBLE_DEVICES'] = '3' inside main() but it has no effect.\n",
    ],
)
def test_visible_devices_that_did_not_take_is_the_cause(text: str) -> None:
    assert _ids(text)[:1] == ["cuda_visible_devices_hides_gpus"]


@pytest.mark.parametrize(
    "text",
    [
        # a wish: how to use every GPU
        "How can I use all GPUs? I set CUDA_VISIBLE_DEVICES=0,1,2,3 and run python train.py.\n",
        # a healthy setup: every GPU selected and used
        "I train on all 4 GPUs with CUDA_VISIBLE_DEVICES=0,1,2,3 python -m torch.distributed.run train.py\n",
        # every GPU used, but the variable is never named
        "My PyTorch training runs on all GPUs of the node and I only want one.\n",
    ],
)
def test_wish_or_no_variable_does_not_fire(text: str) -> None:
    assert "cuda_visible_devices_hides_gpus" not in _ids(text)


# ---- a Linux NVIDIA driver installed inside WSL 2 (NVIDIA's CUDA on WSL User Guide: never install one there) -------


@pytest.mark.parametrize(
    "text",
    [
        "torch.cuda.is_available() is False in WSL2. I had also installed the nvidia driver inside WSL, is that bad?\n",
        "Linux 5.15.153.1-microsoft-standard-WSL2\n$ sudo apt-get install -y nvidia-driver-550\n"
        "$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n",
    ],
)
def test_linux_driver_inside_wsl_is_wsl_libcuda_problem(text: str) -> None:
    assert _ids(text)[:1] == ["wsl_libcuda_problem"]


@pytest.mark.parametrize(
    "text",
    [
        # the driver on Windows, then WSL used: the supported setup
        "I installed the NVIDIA driver on Windows and use Ubuntu in WSL2; torch.cuda.is_available() prints True.\n",
        # the guide's advice, negated
        "The CUDA guide says do not install the NVIDIA driver inside WSL, so I only installed cuda-toolkit-12-4.\n",
        # the driver's package installed on a plain Linux machine, not WSL
        "$ sudo apt-get install -y nvidia-driver-550\n$ nvidia-smi\nNo devices were found\n",
    ],
)
def test_windows_driver_advice_or_native_linux_does_not_fire(text: str) -> None:
    assert "wsl_libcuda_problem" not in _ids(text)


# ---- torch's import failing on a CUDA library of another CUDA major than the installed build's (sonames) ---------

_IMPORT_FAILS = (
    '>>> import torch\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
    '  File "/home/u/.local/lib/python3.8/site-packages/torch/__init__.py", line 189, in <module>\n'
    "    from torch._C import *\nImportError: {lib}: cannot open shared object file: No such file or directory\n"
)


@pytest.mark.parametrize(
    ("install", "lib"),
    [
        ("pip install torch==1.13.1+cu117 -f https://download.pytorch.org/whl/torch_stable.html", "libcudart.so.10.2"),
        ("pip3 install torch --index-url https://download.pytorch.org/whl/cu121", "libcublas.so.11"),
        (
            "pip install https://download.pytorch.org/whl/cu92/torch-1.4.0-cp37-cp37m-linux_x86_64.whl",
            "libcufft.so.8.0",
        ),
    ],
)
def test_library_of_another_cuda_major_is_an_older_torch(install: str, lib: str) -> None:
    assert _ids(f"$ {install}\n" + _IMPORT_FAILS.format(lib=lib))[:1] == ["stale_or_shadowed_torch"]


@pytest.mark.parametrize(
    ("install", "lib"),
    [
        # the same CUDA major: the installed build misses its own library
        ("pip install torch==1.4.0+cu100 -f https://download.pytorch.org/whl/torch_stable.html", "libcudart.so.10.0"),
        # libcurand.so.10 spans CUDA 10.1 to 12.x: it tells no major
        ("pip3 install torch --index-url https://download.pytorch.org/whl/cu121", "libcurand.so.10"),
        # no installed build shown
        ("pip install torch", "libcurand.so.8.0"),
    ],
)
def test_same_major_ambiguous_soname_or_no_build_does_not_fire(install: str, lib: str) -> None:
    assert "stale_or_shadowed_torch" not in _ids(f"$ {install}\n" + _IMPORT_FAILS.format(lib=lib))


def test_french_word_nouveau_alone_is_not_the_topic() -> None:
    from gpuassist.ingest.text import UnreadableInput

    with pytest.raises(UnreadableInput):
        load_text("J'ai acheté un nouveau vélo hier.\nLe magasin était fermé.\n")
