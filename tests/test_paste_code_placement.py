"""Training code with nothing that places the work on the GPU, while the GPU is said to idle (issue #14, round 5):
workload_left_on_cpu as a likely cause. Synthetic texts; see gpuassist/ingest/code_placement.py."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text

LOOP_ON_CPU = """\
The GPU usage stays at 0% while training, the CPU is at 100%.
net = ResNet18()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for images, labels in train_loader:
    out = net(images)
    loss = F.cross_entropy(out, labels)
    loss.backward()
    opt.step()
"""


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_loop_without_placement_and_an_idle_gpu_is_the_likely_cause() -> None:
    findings = load_text(LOOP_ON_CPU).findings
    assert findings[0].id == "workload_left_on_cpu"
    assert findings[0].severity is not Severity.ERROR


def test_placement_in_the_code_is_not_read() -> None:
    placed = LOOP_ON_CPU.replace("net = ResNet18()", "net = ResNet18().to(device)")
    assert "workload_left_on_cpu" not in _ids(placed)
    trainer = LOOP_ON_CPU + "trainer = pl.Trainer(max_epochs=3)\n"
    assert "workload_left_on_cpu" not in _ids(trainer)


def test_gpu_not_said_idle_or_cuda_failing_is_not_read() -> None:
    quiet = LOOP_ON_CPU.replace("The GPU usage stays at 0% while training, the CPU is at 100%.\n", "Loss is NaN.\n")
    assert "workload_left_on_cpu" not in _ids(quiet)
    failing = LOOP_ON_CPU + ">>> torch.cuda.is_available()\nFalse\n"
    assert "workload_left_on_cpu" not in _ids(failing)
