"""A DataLoader with no worker processes stated beside slow or idle GPU training (round 9). Synthetic texts; the
fact alone, zero workers as a crash's fix and the work on the CPU must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.loader_workers import workers_zero_starves


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


@pytest.mark.parametrize(
    "text",
    [
        "Training on my RTX 3090 is very slow, each epoch takes ages. My loader: DataLoader(ds, batch_size=64, "
        "num_workers=0)",
        "GPU utilization is low (about 20%) during training.\nconfig.yaml:\n  num_workers: 0\n  batch_size: 32\n",
        "$ python train.py --data coco --workers 0\nthe GPU sits idle most of the time, how can I speed this up?",
        "On Windows num_workers cannot be larger than 0, and the training on my GTX 1660 is slow.",
        "I set num_workers to 0 and the GPU load is only 10%, is loading the batches the bottleneck?",
        "显卡是RTX 3090，训练很慢，GPU利用率很低，num_workers设置为0",
    ],
)
def test_zero_workers_beside_a_slow_gpu_run_is_starvation(text: str) -> None:
    assert workers_zero_starves(text.splitlines()) is not None
    assert _first(text) == "dataloader_starvation"


def test_zero_workers_alone_is_no_cause() -> None:
    # Counter-example: the fact without the symptom (most small runs are fine with 0).
    text = "My GPU training script: DataLoader(ds, batch_size=8, num_workers=0). Accuracy stays at 50%."
    assert workers_zero_starves(text.splitlines()) is None


def test_zero_workers_as_the_fix_of_a_crash_is_no_cause() -> None:
    # Counter-example: 0 workers is the workaround of a worker crash, the run on the GPU is merely slower now.
    text = (
        "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.\n"
        "Setting num_workers=0 fixed it but training on the GPU is slower."
    )
    assert workers_zero_starves(text.splitlines()) is None
    assert _first(text) != "dataloader_starvation"


def test_zero_workers_with_the_model_on_the_cpu_is_not_the_loader() -> None:
    # Counter-example: the work itself runs on the CPU; the GPU idles for that reason.
    text = "Training is slow and the GPU is idle. num_workers=0, model = Net().to(device=\"cpu\")\ndevice='cpu'"
    assert workers_zero_starves(text.splitlines()) is None
