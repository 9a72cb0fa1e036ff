"""The NVIDIA kernel module said not to be rebuilt for a new kernel, in the user's words.

The driver's kernel module is built per kernel. Distribution packages (DKMS, akmods) rebuild it when a kernel is
installed: DKMS from its kernel postinst hook or ``dkms autoinstall`` (dell/dkms dkms.in autoinstall(),
dkms_autoinstaller.in), akmods at boot. When that does not happen the new kernel boots without an nvidia.ko and
the GPU is unreachable until the module is built by hand (``dkms install nvidia/<version>``,
``dkms autoinstall``, ``akmods --force``). Reporters say so in words: "the module is not rebuilt after a kernel
upgrade", "after every kernel update I have to run dkms install nvidia by hand". DKMS's own messages for the same
class are rows of the kmod family (messages.json: ``dkms_nvidia_tree_broken``, ``dkms_autoinstall_skipped_nvidia``,
``dkms_skipped_no_headers``).

A statement (not a question) that the module is not rebuilt, or that the user must rebuild it by hand, in a text
that ties it to a kernel change = nvidia_module_not_loaded as a guess (the user's account, not a tool's message). It
gives way to any message that names a cause outright, and says nothing when the text shows CUDA or nvidia-smi
working (a routine rebuild that worked is not a fault). DKMS builds many modules (VirtualBox's, ZFS's, Wi-Fi and
webcam drivers): a sentence whose module is another program's, by name or as ``dkms install <name>/`` with a name
other than nvidia, is about that module; and "you do not need to run dkms install" denies the chore it names.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.cuda_working import cuda_shown_working, smi_answered
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.module_load import KERNEL_CHANGED

# The module (nvidia's, DKMS's, akmods') said not (re)built: "module not being rebuilt", "dkms doesn't rebuild the
# nvidia module", "nvidia module was never built for the new kernel", "akmods did not build kmod-nvidia".
NOT_REBUILT = re.compile(
    r"\b(?:modules?|nvidia(?:\.ko)?|kmod-nvidia\S*|dkms|akmods?)\b[^.!?\n]{0,60}?"
    r"\b(?:(?:is|was|were|are|has|have|had|does|did|do|is\s+being|was\s+being)\s*)?(?:not|n'?t|never|no\s+longer)\s+"
    r"(?:being\s+|been\s+|get(?:ting)?\s+|automatically\s+|auto-?)?(?:re-?)?buil[dt]\w*|"
    r"\b(?:dkms|akmods?)\b[^.!?\n]{0,40}?\b(?:does\s*n[o']?t|did\s*n[o']?t|won'?t|fails?\s+to|failed\s+to|never)\s+"
    r"(?:re-?)?build\b",
    re.IGNORECASE,
)
# The user must rebuild it by hand: "have to manually do `sudo dkms install nvidia/xxx`", "need to run dkms
# autoinstall", "must rebuild the nvidia module manually", "akmods --force every time".
BY_HAND = re.compile(
    r"\b(?:have|has|had|need|needs|needed|must)\s+to\s+(?:manually\s+|always\s+|again\s+)?(?:run\s+|do\s+|re-?run\s+)?"
    r"[`'\"]?(?:sudo\s+)?(?:dkms\s+(?:install|autoinstall|build)\b|akmods\s+--force\b|"
    r"(?:re-?build|re-?install|re-?compile)\s+(?:the\s+)?(?:nvidia|dkms|kernel)\s+(?:dkms\s+)?modules?\b)",
    re.IGNORECASE,
)
NVIDIA_OR_DKMS = re.compile(r"\bnvidia\b|\bdkms\b|\bakmods?\b", re.IGNORECASE)
# Other DKMS-built modules a reporter names (Ubuntu/Fedora packages built with DKMS or akmods): VirtualBox, ZFS,
# VMware, Wi-Fi/USB drivers, v4l2loopback, DisplayLink's evdi, WireGuard on old kernels, AMD's amdgpu-dkms ...
OTHER_MODULE = re.compile(
    r"\b(?:virtualbox|vbox\w*|zfs|spl|vmware|vmmon|vmnet|v4l2loopback|evdi|displaylink|wireguard|broadcom|"
    r"bcmwl|wl|rtl\w+|r8\d+\w*|88\w+|amdgpu|rocm|openrazer|acpi_call|xone|xpadneo|ddcci|it87|nct\d+\w*|"
    r"digimend|tuxedo\w*|system76\w*)\b|\bdkms\s+(?:install|build|add|remove)\s+(?!-|nvidia)[\w.-]+/",
    re.IGNORECASE,
)
NVIDIA = re.compile(r"nvidia", re.IGNORECASE)
# "do not need to", "don't have to", "no need to", "never have to": the chore denied; "you need to run dkms
# autoinstall after a kernel update" is an instruction (a quoted guide or an answer), not what happened here.
DENIED_CHORE = re.compile(r"(?:\bnot|n't|\bnever|\bno|\byou)\s+(?:\w+\s+)?$", re.IGNORECASE)


def module_not_rebuilt_in_words(lines: list[str], matches: list[Match]) -> Match | None:
    """The user says the nvidia module is not rebuilt for a new kernel (or must be rebuilt by hand after one)."""
    if any(m.specific for m in matches):
        return None
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if cuda_shown_working(cut) or any(smi_answered(line) for line in cut):
        return None
    if not any(KERNEL_CHANGED.search(line) for line in cut) or not any(NVIDIA_OR_DKMS.search(line) for line in cut):
        return None
    for no, sentence in prose.sentences(cut):
        if prose.is_question(sentence) or (OTHER_MODULE.search(sentence) and not NVIDIA.search(sentence)):
            continue
        chore = BY_HAND.search(sentence)
        if NOT_REBUILT.search(sentence) or (chore and not DENIED_CHORE.search(sentence[: chore.start()])):
            return Match("nvidia_module_not_loaded", no, sentence.strip()[:500], False, 0.8)
    return None
