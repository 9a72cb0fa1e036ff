"""Fresh-eyes review of round 20 (issue #14): the readers added to ``diagnose --from`` for prose (an illegal memory
access told in words, a torch build's CUDA in words, a conda dry run, a cpuonly command beside a CUDA one, the
blamed process killed, a program's sleep). Each case is a realistic synthetic text with the reason it must (not)
fire: texts of the same class in other wordings, and decoys (changelogs, docs, another program, another machine)."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text

OOM = (
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity; 1.20 GiB "
    "already allocated; 300.00 MiB free; 1.50 GiB reserved in total by PyTorch)\n"
)
UNKNOWN = "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment"
NO_KERNEL = "CUDA error: no kernel image is available for execution on the device"


def _ids(text: str) -> dict[str, Severity]:
    return {f.id: f.severity for f in load_text(text).findings}


# ------------------------------------------------------------------------------ illegal memory access in words

ILLEGAL_DECOYS = [
    (
        "CHANGELOG v2.3.1: Fixed a bug causing an illegal memory access in the CUDA kernel for fused layernorm.",
        "a changelog's fix names the fault several words after 'fixed'",
    ),
    (
        "My GPU is not detected: torch.cuda.is_available() returns False. This is not related to the illegal "
        "memory access in #1234, it is a fresh install.",
        "the fault is set apart from the user's problem",
    ),
    (
        "compute-sanitizer is the tool to find an illegal memory access in your CUDA kernel.",
        "a tool described (quoted docs), no fault reported",
    ),
    (
        "Training on the GPU runs fine now. Previously I had an illegal memory access but updating the driver "
        "solved it.",
        "a past fault that the user says is solved",
    ),
    (
        "I use cuda 11.8 on my RTX 3090. On my Raspberry Pi, the C program crashes with Bus error: misaligned "
        "address when reading the packed struct.",
        "the CPU's SIGBUS in another program, in a text that names CUDA elsewhere",
    ),
    (
        "Segmentation fault in my C++ code: illegal memory access at 0x0 in libfoo.so. Unrelated: the GPU works "
        "fine with torch.",
        "a CPU segfault in a library, with no GPU word in its sentence",
    ),
]


@pytest.mark.parametrize(("text", "reason"), ILLEGAL_DECOYS)
def test_illegal_access_words_decoys(text: str, reason: str) -> None:
    assert "cuda_illegal_memory_access" not in _ids(text), reason


ILLEGAL_TOLD = [
    ("Running my model on the GPU crashes with an illegal memory access after about 300 iterations.", "plain"),
    ("I keep hitting illegal memory accesses in my custom CUDA kernel when batch size > 64.", "plural"),
    ("With cudnn.benchmark=True the forward pass on cuda fails with a misaligned address error.", "misaligned"),
    ("Training crashes after 5 minutes on cuda: Segmentation fault, illegal memory access.", "segfault beside CUDA"),
    (
        "My training dies with a segfault and an illegal memory access after the first epoch. I use 2 GPUs.",
        "segfault in training",
    ),
    ("Previously it ran fine, now I get an illegal memory access on the GPU.", "the past is another clause"),
    ("I am trying to debug an illegal memory access in my CUDA kernel.", "debugging one is reporting one"),
    ("Once training starts I get an illegal memory access on the GPU.", "'once' as 'when' is not the past"),
    ("I get an illegal memory access on the GPU that never went away after reinstalling.", "never went away"),
]


@pytest.mark.parametrize(("text", "reason"), ILLEGAL_TOLD)
def test_illegal_access_words_other_wordings(text: str, reason: str) -> None:
    assert "cuda_illegal_memory_access" in _ids(text), reason


# ------------------------------------------------------------------------------------ torch build in words

BUILD_NOT_STATED = [
    (f"RTX 3090. The README says to install torch 1.7 with cuda 10.2. I get {NO_KERNEL}", "an instruction"),
    (
        f"RTX 3090. For reference, torchvision with cuda 10.2 was released in 2019. I get {NO_KERNEL}",
        "a release dated, not the installed build",
    ),
    (
        f"RTX 3090, torch 2.1 from pip. My colleague's machine has torch with cuda 10.2 and a GTX 1080. I get "
        f"{NO_KERNEL}",
        "another machine's build",
    ),
]


@pytest.mark.parametrize(("text", "reason"), BUILD_NOT_STATED)
def test_build_words_not_a_fact(text: str, reason: str) -> None:
    assert load_text(text).facts.value("torch.cuda_build") is None, reason


BUILD_STATED = [
    (
        "My A100 says sm_80 is not compatible with the current PyTorch installation; my torch is compiled for "
        "cuda 10.2.",
        "10.2",
        "a denial in an earlier clause does not reach the build's clause",
    ),
    (f"RTX 3060, torch for cu102 from the conda channel, error: {NO_KERNEL}", "10.2", "'for cu102' is a tag too"),
    (f"GeForce RTX 3080: pip installed torch with CUDA 10.2 by default and I get {NO_KERNEL}", "10.2", "plain"),
]


@pytest.mark.parametrize(("text", "cuda", "reason"), BUILD_STATED)
def test_build_words_stated(text: str, cuda: str, reason: str) -> None:
    assert load_text(text).facts.value("torch.cuda_build") == cuda, reason


# ---------------------------------------------------------------------------------------- conda commands


def test_cuda_index_url_quoted_from_docs_does_not_excuse_a_cpuonly_install() -> None:
    """A pip index URL in a sentence installs nothing: the cpuonly command is still a possible cause."""
    text = (
        "conda install pytorch torchvision cpuonly -c pytorch\n"
        "torch.cuda.is_available() returns False on my RTX 3090. The docs say to use "
        "download.pytorch.org/whl/cu121 for pip, but I used conda.\n"
    )
    assert "cpu_only_build" in _ids(text)


def test_pip_install_from_cuda_index_is_another_environment() -> None:
    """A pip install from the CUDA index beside a cpuonly command: two environments, nothing blamed."""
    text = (
        "laptop: conda install pytorch torchvision cpuonly -c pytorch\n"
        "server: pip install torch --index-url https://download.pytorch.org/whl/cu121\n"
    )
    assert "cpu_only_build" not in _ids(text)


# ----------------------------------------------------------------------------------------- conda dry run

PLAN_TEXT = (
    "$ conda install -c pytorch pytorch\n\n## Package Plan ##\n\nThe following NEW packages will be INSTALLED:\n\n"
    "  pytorch            pytorch/linux-64::pytorch-2.1.0-py3.10_cpu_0\n"
    "  pytorch-mutex      pytorch/noarch::pytorch-mutex-1.0-cpu\n\n"
    "Proceed ([y]/n)? y\n\nDownloading and Extracting Packages\nExecuting transaction: done\n"
)


def test_dry_run_before_the_real_install_does_not_hide_the_installed_build() -> None:
    """A look with --dry-run first, then the real install (conda ran the transaction): the plan is installed."""
    text = "$ conda install -c pytorch pytorch --dry-run\nDryRunExit: Dry run. Exiting.\n" + PLAN_TEXT
    report = load_text(text)
    assert report.facts.value("torch.conda_build") == "py3.10_cpu_0"


# -------------------------------------------------------------------------------------- killed holder

KILL_KEEPS_VERDICT = [
    (
        "nvidia-smi shows another python process using 20GB. I killed the process and now it works, but it comes "
        "back again each morning because a cron job starts it.",
        "the kill fixed it: the other process was the cause",
    ),
    (
        "The other python process that was using the GPU is still running, I stopped the jupyter process but it is "
        "still there in nvidia-smi.",
        "'still' is about the holder still present, not the job failing",
    ),
]


@pytest.mark.parametrize(("words", "reason"), KILL_KEEPS_VERDICT)
def test_held_memory_verdict_kept(words: str, reason: str) -> None:
    assert _ids(OOM + words).get("gpu_memory_held_by_others") is Severity.ERROR, reason


def test_killed_and_still_failing_is_a_guess() -> None:
    """The class round 20 reads, in another wording: stopped the other job, the same error."""
    ids = _ids(OOM + "I stopped the other training process but the same error is still there when I rerun.")
    assert ids.get("gpu_memory_held_by_others") is not Severity.ERROR


# ---------------------------------------------------------------------------------------------- sleep


def test_shell_sleep_with_seconds_is_not_the_hosts_sleep() -> None:
    """'after sleep 10' in a launcher script is a command, like sleep(5): not a suspend/resume cycle."""
    text = f"My launcher runs `sleep 10` between jobs, and after sleep 10 the next job fails: {UNKNOWN}"
    assert _ids(text).get("uvm_wedged_after_suspend") is not Severity.ERROR


def test_host_sleep_still_read() -> None:
    assert _ids(f"After sleep the laptop gives {UNKNOWN}").get("uvm_wedged_after_suspend") is Severity.ERROR


# ------------------------------------------------------------------ fx22-sys: unknown flag --gpus, WSL paths

GPUS_FLAG_ELSEWHERE = [
    (
        "$ docker build --gpus all -t myimg .\nunknown flag: --gpus\nSee 'docker build --help'.\n",
        "docker build never had --gpus: a client upgrade does not help",
    ),
    (
        "$ docker exec --gpus all -it trainer nvidia-smi\nunknown flag: --gpus\nSee 'docker exec --help'.\n",
        "docker exec never had --gpus: the container's devices are set when it is created",
    ),
    (
        "$ podman run --gpus all nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi\nError: unknown flag: --gpus\n",
        "another engine's CLI: docker's client upgrade is not its fix",
    ),
]


@pytest.mark.parametrize(("text", "reason"), GPUS_FLAG_ELSEWHERE)
def test_unknown_gpus_flag_on_a_command_without_it(text: str, reason: str) -> None:
    assert "docker_no_gpu_runtime" not in _ids(text), reason


GPUS_FLAG_OLD_CLIENT = [
    (
        "$ docker run --gpus all nvidia/cuda:11.0-base nvidia-smi\nunknown flag: --gpus\nSee 'docker run --help'.\n",
        "docker run on a client older than 19.03",
    ),
    ("I tried docker run --gpus all but got: unknown flag: --gpus. docker version says 18.09.", "told in words"),
    ("$ docker container create --gpus all img\nunknown flag: --gpus\n", "the long form of create"),
]


@pytest.mark.parametrize(("text", "reason"), GPUS_FLAG_OLD_CLIENT)
def test_unknown_gpus_flag_on_docker_run_is_the_old_client(text: str, reason: str) -> None:
    assert _ids(text).get("docker_no_gpu_runtime") is Severity.ERROR, reason


def test_windows_partition_on_a_dual_boot_is_not_wsl() -> None:
    """A dual-boot Linux mounting its Windows partition at /mnt/c: the path is the user's mount, not WSL's drvfs."""
    text = (
        "Dual boot Ubuntu 22.04, my dataset is on the Windows partition that I mount at /mnt/c/Users/me/data. "
        "torch.cuda.is_available() False, RuntimeError: No CUDA GPUs are available\n"
    )
    report = load_text(text)
    assert report.facts.value("platform.wsl") is None
    assert report.findings[0].id != "wsl_libcuda_problem"


def test_wsl_denied_in_words() -> None:
    text = "Native Ubuntu, not WSL. RuntimeError: No CUDA GPUs are available\n"
    assert load_text(text).facts.value("platform.wsl") is None


def test_wsl_drvfs_path_still_read() -> None:
    text = "python /mnt/c/Users/me/proj/train.py\nRuntimeError: No CUDA GPUs are available\n"
    assert load_text(text).facts.value("platform.wsl") == "wsl2"


# ------------------------------------------------------------- the table's rows for the user's words (*_words)

WORDS_ASKED = [
    (
        "Does the nvidia module fail to load when nouveau is loaded? My nvidia-smi shows the GPU fine, "
        "torch.cuda.is_available() False.",
        "a question about nouveau, beside nvidia-smi working",
    ),
    (
        "Is it possible that nvidia-smi can't find the driver after a kernel update? Mine lists the RTX 4090 and "
        "torch.cuda.is_available() is False.",
        "a question, not nvidia-smi's failure retold",
    ),
]


@pytest.mark.parametrize(("text", "reason"), WORDS_ASKED)
def test_words_rows_not_read_from_questions(text: str, reason: str) -> None:
    assert "nvidia_module_not_loaded" not in _ids(text), reason


WORDS_TOLD = [
    ("modprobe nvidia fails since nouveau is still loaded.", "nouveau retold as a statement"),
    ("I ran nvidia-smi and it says it can't find the driver after the reboot.", "nvidia-smi retold"),
    (
        "Any idea? The nvidia module can't be loaded because nouveau is always loaded at boot.",
        "a question elsewhere on the line does not hide the statement",
    ),
]


@pytest.mark.parametrize(("text", "reason"), WORDS_TOLD)
def test_words_rows_still_read_from_statements(text: str, reason: str) -> None:
    assert "nvidia_module_not_loaded" in _ids(text), reason
