"""The words a `diagnose --from` report uses about its input: a pasted line's evidence reads once as "line N",
and the source line never says "no error message" above a finding that cites one."""

from gpuassist.ingest import load_text
from gpuassist.ingest.kinds import describe
from gpuassist.wizard.display import fact_label

MODPOST_LOG = """\
  CC [M]  /var/lib/dkms/nvidia/545.29.06/build/nvidia/nv.o
  MODPOST /var/lib/dkms/nvidia/545.29.06/build/Module.symvers
ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol '__rcu_read_lock'
make[2]: *** [scripts/Makefile.modpost:145: Module.symvers] Error 1
"""


def test_pasted_line_label_does_not_repeat_line() -> None:
    label = fact_label("pasted.line")
    assert label == "Pasted text"
    assert "line line" not in f"{label} line 6: ERROR: modpost: ..."


def test_source_line_names_messages_read_without_a_kind() -> None:
    assert "no tool output or error message" in describe([])
    assert "known messages" in describe([], messages_read=True)


def test_a_build_log_with_a_known_message_is_not_called_message_free() -> None:
    report = load_text(MODPOST_LOG, label="build.log")
    assert [f.id for f in report.findings][:1] == ["nvidia_module_not_loaded"]
    assert "no tool output or error message" not in report.meta["source_label"]
    assert not any("the text only talks about the problem" in m for m in report.meta["missing_facts"])


def test_prose_with_no_message_still_says_so() -> None:
    report = load_text("My PyTorch training seems slow on the GPU, any ideas what to check first?", label="q.txt")
    assert "no tool output or error message" in report.meta["source_label"]
