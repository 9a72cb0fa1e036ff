"""Round 18 (issue #14): a user who found another process holding (nearly) all of the GPU's memory, in English or
Chinese; synthetic texts that must be read and counter-examples that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n"


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    "words",
    [
        "I checked nvidia-smi and there is a process called inferd that takes up almost all the GPU memory.\n",
        "Found a process named render-daemon eating all of the VRAM, it comes back after kill.\n",
        "看了nvidia-smi，发现有一个FooService进程占满了显存，杀掉以后又出现。\n",
        "我发现有个XyzServer进程，把显存基本全占满了\n",
    ],
)
def test_found_process_holding_memory_is_held_by_others(words: str) -> None:
    assert _ids(OOM + words)[:1] == ["gpu_memory_held_by_others"]


@pytest.mark.parametrize(
    "words",
    [
        # the user's own job fills the card: the job is too large
        "nvidia-smi shows my training process uses almost all the memory before it crashes.\n",
        "我发现训练进程把显存全占满了，batch size 调小也不行\n",
        # denied
        "nvidia-smi shows no process using all the memory, the card is empty before I start.\n",
        # memory words with no process holding it
        "I found that the model takes up all the memory with batch 64.\n",
    ],
)
def test_own_or_denied_process_is_not_held_by_others(words: str) -> None:
    assert "gpu_memory_held_by_others" not in _ids(OOM + words)[:1]


def test_process_taking_the_cpu_is_not_gpu_memory() -> None:
    assert "gpu_memory_held_by_others" not in _ids(OOM + "我发现有个进程完全占用了CPU，训练很慢\n")[:1]


def test_the_users_own_process_seen_in_nvidia_smi_is_not_held_by_others() -> None:
    words = "In nvidia-smi I see the process uses almost all the memory right before the crash.\n"
    assert "gpu_memory_held_by_others" not in _ids(OOM + words)[:1]
