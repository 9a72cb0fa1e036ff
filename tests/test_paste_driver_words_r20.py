"""Round 20 (issue #14): the system side told in the user's words. nvidia-smi's "couldn't communicate with the NVIDIA
driver ... installed and running" retold as nvidia-smi not finding the driver reads like the message itself (module
not running first, no driver next); nouveau named as what keeps NVIDIA's module from loading is the module cause.
Synthetic texts and counter-examples that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.knowledge.messages import lookup

SMI_CANNOT_FIND_DRIVER = (
    "Since the kernel update last night my training box is dead: nvidia-smi says it cannot find the NVIDIA driver\n"
    "and torch.cuda.is_available() is False.\n"
)
SMI_COULDNT_DETECT = "After a restart, nvidia-smi couldn't detect any nvidia driver anymore.\n"
SMI_CANT_FIND_THE_DRIVER = "after the reboot nvidia-smi can't find the driver, it says make sure it is installed.\n"


@pytest.mark.parametrize("text", [SMI_CANNOT_FIND_DRIVER, SMI_COULDNT_DETECT, SMI_CANT_FIND_THE_DRIVER])
def test_smi_not_finding_the_driver_in_words_is_the_module_first(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "nvidia_module_not_loaded"
    assert "cpu_only_build" not in ids


@pytest.mark.parametrize(
    "text",
    [
        # nvidia-smi works; something else does not find the driver
        "nvidia-smi works fine, but the game launcher can't find the nvidia driver.\n",
        "nvidia-smi shows both GPUs while tensorflow cannot find the nvidia driver libraries.\n",
        # nvidia-smi itself missing is another story (not this reading)
        "I can't find the nvidia driver download page for my Quadro.\n",
    ],
)
def test_smi_working_or_no_smi_is_not_read_as_smi_failing(text: str) -> None:
    ids = {f.id for f in load_text(text).findings}
    assert "nvidia_module_not_loaded" not in ids


NOUVEAU_BLOCKS = [
    "After the upgrade the nvidia module cannot be loaded because nouveau is always loaded first.\n",
    "nouveau keeps getting loaded at boot and the nvidia driver won't load, even with the kmod built.\n",
    "modprobe nvidia fails since nouveau is still loaded.\n",
]


@pytest.mark.parametrize("text", NOUVEAU_BLOCKS)
def test_nouveau_named_as_blocking_nvidia_is_the_module_cause(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "nvidia_module_not_loaded"
    assert not {"no_nvidia_driver", "driver_library_mismatch"} & set(ids)


@pytest.mark.parametrize(
    "text",
    [
        # nouveau unloaded, nvidia loads: the story of a fix, not a failure
        "I blacklisted nouveau and now the nvidia module loads and nvidia-smi shows my card.\n",
        # French: "un nouveau driver" is "a new driver"
        "J'ai installé un nouveau driver nvidia et tout marche.\n",
    ],
)
def test_nouveau_words_without_nvidia_failing_claim_nothing(text: str) -> None:
    assert "nvidia_module_not_loaded" not in {f.id for f in load_text(text).findings}


@pytest.mark.parametrize(
    "line",
    [
        # nouveau said not to be there: the module fails for another reason (its own words still say it fails)
        "the nvidia kernel module fails to load even though nouveau is not loaded",
        "nouveau is blacklisted and unloaded, the nvidia driver fails to load anyway",
    ],
)
def test_nouveau_said_absent_is_not_the_nouveau_reading(line: str) -> None:
    assert "nouveau_blocks_nvidia_words" not in {row.key for row in lookup(line)}
    assert "nouveau_blocks_nvidia_words" in {row.key for row in lookup(NOUVEAU_BLOCKS[0])}
