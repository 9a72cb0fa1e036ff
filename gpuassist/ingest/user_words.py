"""What users say about their GPU in their own words, in any language, rather than in a tool's fixed message.

The fixed messages (``Torch not compiled with CUDA enabled``) are matched by the catalogue's patterns. A user's
own sentences carry causes too, and the next thread says them differently: "webui检测不到显卡" (the web UI cannot
see the graphics card), "My PC is Intel Iris Xe Graphics", "the torch that got installed was the CPU version",
"the GPU memory is not released after Ctrl-C", "after resuming from suspend". Each reading here is one general
mechanism with its own regex, so a paraphrase, another language or a typo still reads the same way.

Words written in Chinese, Japanese or Korean run into ASCII ones without a space ("orin板子", "用GPU训练"): Python's
``\\b`` sees no boundary there (CJK characters are word characters), so ASCII names are bounded by
``(?<![A-Za-z0-9])`` / ``(?![A-Za-z0-9])`` instead.
"""

from __future__ import annotations

import re
from functools import cache

from gpuassist.findings import Severity
from gpuassist.ingest.cuda_working import NVIDIA_GPU_MODEL, available_true_on_line
from gpuassist.ingest.errors import Match
from gpuassist.ingest.killed_holder import killed_still_fails
from gpuassist.ingest.lines import MAX_LINE, note_source
from gpuassist.ingest.needles import any_of
from gpuassist.report.model import Report

# The graphics card / GPU named in other languages (zh, ja, ko, es, pt, de, fr, it, ru), and NVIDIA's name in them.
GPU_WORDS = (
    r"(?<![A-Za-z0-9])gpus?(?![A-Za-z])|显卡|顯卡|显存|顯存|独显|獨顯|英伟达|英偉達|"
    r"グラフィック(?:ボード|カード)|グラボ|ビデオカード|エヌビディア|"
    r"그래픽\s?카드|엔비디아|"
    r"tarjeta (?:gr[aá]fica|de v[ií]deo)|placa (?:de v[ií]deo|gr[aá]fica)|"
    r"grafikkarte|grafikprozessor|carte graphique|scheda (?:video|grafica)|"
    r"видеокарт\w*|графическ\w* (?:процессор|ускорител|карт)\w*"
)
GPU_WORD = re.compile(GPU_WORDS, re.IGNORECASE)

# "The GPU is not detected / used / found" in those languages. English is read by the callers' own patterns.
_GPU = r"(?:GPU|显卡|顯卡|グラフィックボード|グラボ|그래픽\s?카드)"
NOT_DETECTED = re.compile(
    # zh: 检测不到显卡, 识别不到GPU, 没有检测到显卡, 找不到显卡, 显卡没有被调用, 用不了显卡
    rf"(?:检测|檢測|识别|識別|侦测|偵測|找|认|認|读取|讀取)不到\S{{0,4}}{_GPU}|"
    rf"(?:没|沒)有?(?:检测|檢測|识别|識別|找)到\S{{0,4}}{_GPU}|"
    rf"{_GPU}\S{{0,8}}(?:没有|沒有|未|不)(?:被)?(?:检测|檢測|识别|識別|调用|調用|使用|启用|啟用|用上)|"
    rf"(?:用不了|用不上|不能用|无法使用|無法使用|调用不了)\S{{0,4}}{_GPU}|"
    # ja: GPUが認識されない, GPUを認識しません, GPUが使えない
    rf"{_GPU}\s?[がを]\s?(?:認識|検出|使用|使わ)(?:され|し)?(?:ない|ません)|{_GPU}\s?が\s?使え(?:ない|ません)|"
    # ko: GPU를 인식하지 못, GPU가 인식되지 않, GPU를 사용하지 않
    rf"{_GPU}\s?[를을가이]\s?(?:인식|사용|감지)(?:하지|되지|을 못|이 안|를 못)|"
    # es / pt / fr / it: no detecta la GPU, não reconhece a placa de vídeo, ne détecte pas la carte graphique
    r"\bno (?:detecta|reconoce|encuentra|usa|utiliza)\s+(?:la |mi )?(?:gpu|tarjeta gr[aá]fica)|"
    r"\bn[aã]o (?:detecta|reconhece|encontra|usa|utiliza)\s+(?:a |minha )?(?:gpu|placa de v[ií]deo)|"
    r"\bne (?:d[ée]tecte|reconna[iî]t|trouve|utilise) pas\s+(?:la |ma |le )?(?:gpu|carte graphique)|"
    r"\bnon (?:rileva|riconosce|trova|usa|utilizza)\s+(?:la |il )?(?:gpu|scheda video)|"
    # de: erkennt die GPU nicht, GPU wird nicht erkannt
    r"\b(?:erkennt|findet|nutzt|verwendet)\s+(?:die |meine )?(?:gpu|grafikkarte) nicht\b|"
    r"\b(?:gpu|grafikkarte) wird nicht (?:erkannt|gefunden|genutzt|verwendet)|"
    # ru: не видит видеокарту, GPU не определяется
    r"не (?:видит|находит|использует|определяет|распознает)\s+(?:gpu|видеокарт\w*)|"
    r"(?:gpu|видеокарта) не (?:определяется|видна|видится|используется|обнаружена)",
    re.IGNORECASE,
)


@cache
def _word_finder(words: tuple[str, ...]) -> re.Pattern[str]:
    finder = any_of(list(words))  # a trie of the literals, matched against the lower-cased line
    return finder if finder is not None else re.compile(r"(?!)")


def _gate(lines: list[str], words: tuple[str, ...]) -> list[str]:
    """The lines (cut to MAX_LINE) that contain one of ``words`` (lower case), the others blanked so line numbers
    stay: one literal search per line keeps a long log's irrelevant lines away from the costlier regexes."""
    finder = _word_finder(words)
    return [cut if finder.search((cut := line[:MAX_LINE]).lower()) else "" for line in lines]


NVIDIA_WORDS = ("nvidia", "geforce", "quadro", "tesla", "titan", "rtx", "gtx", "jetson", "tegra", "cuda")
ADAPTER_WORDS = ("intel", "amd", "radeon", "核显", "集成显卡", "内置显卡", "英特尔")


def mentions_gpu(text: str) -> bool:
    """Whether the text names a GPU or graphics card, in any of the languages above."""
    return GPU_WORD.search(text) is not None


def says_gpu_not_detected(text: str) -> bool:
    """Whether the text says, in a language other than English, that the GPU is not detected or not used."""
    return NOT_DETECTED.search(text) is not None


# ---------------------------------------------------------------------------------------------------- own graphics

# The user states the machine's graphics in a sentence ("My PC is Intel(R) Iris(R) Xe Graphics", "my laptop has AMD
# Radeon graphics", "I only have Intel UHD 620"). Typos of Iris ("lris") are common; "(R)"/"®" marks are optional.
_MARK = r"(?:\s*(?:\(R\)|®|\(TM\)|™|R(?=\s)))?"
NON_NVIDIA_ADAPTER = re.compile(
    rf"\bIntel{_MARK}\s*(?:[IlL]ris{_MARK}\s*(?:Xe|Plus|Pro)?|U?HD{_MARK}\s*(?:Graphics)?\s*\d*|Xe\b|Arc\b)"
    rf"[^.\n]{{0,20}}?(?:Graphics|GPU|\d{{3,4}})?|"
    rf"\bAMD{_MARK}\s*Radeon{_MARK}\s*(?:\(TM\)\s*)?(?:RX\s*)?\w*\s*(?:Graphics|GPU)?|\bRadeon\s*(?:RX\s*)?\d{{3,4}}\w*|"
    r"\bRadeon(?:\(TM\)|™)?\s+(?:Graphics|Vega\s*\d*|Pro\s+\w+)|"
    # zh: integrated graphics ("核显", "集成显卡"), an Intel/AMD card ("AMD显卡", "Intel的核显")
    r"核显|集成显卡|内置显卡|(?:Intel|AMD|英特尔)\S{0,3}(?:显卡|核显)",
    re.IGNORECASE,
)
OWNERSHIP = re.compile(
    r"\b(?:my|our|the)\s+(?:pc|computer|laptop|notebook|machine|system|device|graphics|gpu|video card|card)\b"
    r"[^.\n]{0,20}?\b(?:is|has|have|uses|with|:)|"
    r"\b(?:i|we)\s+(?:only\s+)?(?:have|own|use|got|am using|'m using)\b|\bi'm on\b|\bi am on\b|"
    r"\b(?:pc|computer|laptop|notebook|machine)\s+(?:with|has)\b|"
    r"^\s*(?:[-*]\s*)?(?:system|specs?|hardware|pc|laptop|computer|machine|device)\s*:|"
    # The same in other languages: "我的电脑是", "我只有", "Meine Grafikkarte ist", "mi portátil tiene", "у меня".
    r"我的|我用的|我只有|本机|电脑是|笔记本是|\bmeine?\b|\bmi (?:port[aá]til|pc|computadora|ordenador|laptop)\b|"
    r"\btengo\b|\bminha\b|\bmeu\b|у меня|мой|моя|私の|내 ",
    re.IGNORECASE,
)
# An NVIDIA GPU named anywhere: then an Intel or AMD adapter is not the only one (a laptop's iGPU beside it).
NVIDIA_NAMED = re.compile(
    r"\b(?:nvidia|geforce|quadro|tesla|titan|[gr]tx\s?\d|jetson|tegra|cuda (?:device|gpu)\s*\d)\b|nvidia-smi\s*\|",
    re.IGNORECASE,
)


# "no NVIDIA card", "without a dedicated NVIDIA GPU", "doesn't have an NVIDIA GPU": NVIDIA named only to deny it.
NVIDIA_DENIED = re.compile(
    r"\b(?:no|without(?: an?| any)?|not an?|(?:don'?t|doesn'?t|do not|does not) have(?: an?| any)?)\s+"
    r"(?:dedicated |discrete )?nvidia(?:\s+(?:gpu|card|graphics(?: card)?|video card|adapter)s?)?\b",
    re.IGNORECASE,
)


def stated_non_nvidia_graphics(lines: list[str]) -> Match | None:
    """The user says, in a sentence, that their machine's graphics are Intel or AMD, and nothing in the text names
    an NVIDIA GPU: there is no NVIDIA GPU to run CUDA on. A CPU build of torch is then right for the machine, not
    the cause; every CUDA error follows from the missing GPU."""
    if any(NVIDIA_NAMED.search(NVIDIA_DENIED.sub(" ", line)) for line in _gate(lines, NVIDIA_WORDS) if line):
        return None
    for no, text in enumerate(_gate(lines, ADAPTER_WORDS), start=1):
        if NON_NVIDIA_ADAPTER.search(text) and OWNERSHIP.search(text):
            return Match("no_nvidia_gpu", no, text.strip()[:500], True, 0.9)
    return None


# --------------------------------------------------------------------------------------- CUDA's "unknown error"

# CUDA's error 999 in the words of each framework: torch's warning, cuInit's name, the runtime's number.
CUDA_UNKNOWN = re.compile(
    r"CUDA unknown error|cuda runtime error \(999\)|CUDA_ERROR_UNKNOWN|cuInit failed: unknown|"
    r"CUDA error: unknown error|cudaErrorUnknown|"
    r"cuInit\b[^\n]{0,40}\bunknown error|error 999\b|Test CUDA failure \S+:\d+ 'unknown error'",
    re.IGNORECASE,
)
# The text ties the failure to a sleep/resume cycle, or to the nvidia_uvm module it leaves broken.
# "Resume" alone is no evidence: ML texts resume training from checkpoints.
SUSPEND_CONTEXT = re.compile(
    r"\b(?:suspen(?:d|ded|ding|ds|sion)|hibernat\w*|wak(?:e|es|ing) (?:up|from)|woke up|"
    # the host's sleep, not a program's sleep() call or shell command ("after sleep(5)", "after sleep 10 the next
    # CUDA call fails": a number of seconds)
    r"after (?:sleep(?!\s*\(|\s+\d)|standby)|(?:sleep|standby) mode|from (?:sleep(?!\s*\(|\s+\d)|standby)|"
    r"lid (?:closed|open)|"
    r"resum\w* (?:from|after) (?:suspend|sleep|hibernation|standby)|"
    r"(?:system|computer|laptop|pc|machine|os) (?:resum|wak)\w*|"
    r"after resuming(?! (?:the |my )?(?:training|from (?:a |the )?checkpoint|run|job|download)))\b|nvidia[-_]uvm|"
    r"休眠|睡眠|待机|唤醒|スリープ|サスペンド|절전|sospensione|suspensi[oó]n|r[ée]veil",
    re.IGNORECASE,
)


def unknown_error_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """CUDA's "unknown error" (999) has more than one cause: a nvidia_uvm module broken by suspend/resume is the
    commonest, but a device not visible in a container, a half-installed driver or a failing GPU print it too. It
    is a verdict only when the text itself ties it to a suspend/resume cycle or to nvidia_uvm; otherwise it is a
    possibility to check, never an error the text cannot support."""
    gated = _gate(lines, ("unknown", "999"))
    unknown = next(((no, line) for no, line in enumerate(gated, start=1) if CUDA_UNKNOWN.search(line)), None)
    if unknown is None:
        return matches
    context = next(
        ((no, line) for no, line in enumerate(lines, start=1) if SUSPEND_CONTEXT.search(line[:MAX_LINE])), None
    )
    kept = [m for m in matches if m.id != "uvm_wedged_after_suspend"]
    if context is not None:
        return [*kept, Match("uvm_wedged_after_suspend", unknown[0], unknown[1].strip()[:500], True, 0.9)]
    return [*kept, Match("uvm_wedged_after_suspend", unknown[0], unknown[1].strip()[:500], False, 0.7)]


def drop_unsupported_uvm_verdict(report: Report, lines: list[str]) -> None:
    """The uvm rule reads error 999 from the pasted lines as a verdict; on a live machine the module list and the
    suspend count back it, in a paste nothing does unless the text mentions suspend/resume or nvidia_uvm. Without
    that, the rule's verdict goes and the possibility (``unknown_error_matches``) stands in for it."""
    if not any(f.id == "uvm_wedged_after_suspend" for f in report.findings) or (
        report.facts.known("kernel.modules")
        or report.facts.known("kernel.suspend_count")
        or any(SUSPEND_CONTEXT.search(line[:MAX_LINE]) for line in lines)
    ):
        return
    report.findings[:] = [
        f for f in report.findings if not (f.id == "uvm_wedged_after_suspend" and f.severity is Severity.ERROR)
    ]


# ----------------------------------------------------------------------------- a CPU torch described in words

# "the version of torch that was installed was the CPU version", "mamba still tries to install PyTorch "CPU"",
# "pip pulled in the CPU-only torch", "it installs torch cpu instead of cuda", "the torch will be cpu version" (what an
# install gives, in the future or conditional tense).
CPU_TORCH_WORDS = re.compile(
    r"\b(?:install\w*|pull\w*|download\w*|resolv\w*)\s+(?:py)?torch\s+to\s+(?:the |a )?cpu\b|"
    r"(?<![A-Za-z0-9_])(?:py)?torch(?![A-Za-z0-9_])[^.\n]{0,60}?"
    r"\b(?:install\w*|pull\w*|download\w*|resolv\w*|got|get[s]?|was|is|came|to|will be|would be|becomes?|became)\b"
    r"[^.\n]{0,40}?(?:\bcpu(?:[- ]only)?\s*(?:version|build|wheel|variant|package)\b|[\"'`]cpu[\"'`])|"
    r"\b(?:install\w*|pull\w*|tries to install|download\w*)\s+(?:the |a )?(?:py)?torch\s+[\"'`]?cpu[\"'`]?(?![\w-])|"
    r"\bcpu[- ]?(?:only )?(?:version|build|wheel|variant) (?:of (?:py)?torch )?(?:instead of|rather than|"
    r"not) (?:the )?(?:cuda|gpu)\b|"
    # conda-forge's CPU metapackage named as what the solver gave: "installed `pytorch_cpu` rather than `pytorch_cuda`".
    r"\b(?:install(?:s|ed)|got|gets?|pull(?:s|ed)|resolved(?: to)?|chose|picks?|picked)\s+(?:the |a |only )?[\"'`]?"
    r"pytorch[-_]cpu\b|"
    r"(?<![\w-])[\"'`]?pytorch[-_]cpu\b[\"'`]?\s+(?:instead of|rather than)\b",
    re.IGNORECASE,
)
# The installer's default described: "it defaults to the [cpu] version", "falls back to the CPU-only build", "ended
# up with the cpu wheel": read on a line that names torch (PyPI's Windows and macOS torch is the CPU build, and uv /
# pip pick it unless an index says otherwise: uv docs, "Using uv with PyTorch").
CPU_BUILD_DEFAULTED = re.compile(
    r"\b(?:defaults?|defaulted|defaulting|falls?\s+back|fell\s+back|reverts?|reverted|end(?:s|ed)?\s+up)\s+"
    r"(?:to|with|on)\s+(?:the\s+|a\s+)?[\[\"'`]?cpu(?:[- ]only)?[\]\"'`]?\s*(?:version|build|wheel|variant|package)\b",
    re.IGNORECASE,
)
# What the installer gave, with "CPU" before torch's name or after it ("uv sync installs CPU torch", "pip installed a
# CPU-only pytorch", "it installs torch with cpu"): an inflected verb, so a wish ("I want to install the CPU-only
# torch") is not read.
CPU_BUILD_GIVEN = re.compile(
    r"\b(?:installs|installed|pulls|pulled|resolves|resolved|gives|gave|got|gets|downloads|downloaded|picks|picked|"
    r"chose|chooses)\s+(?:me\s+)?(?:the\s+|a\s+|only\s+)?cpu(?:[- ]only)?\s+(?:py)?torch\b|"
    r"\b(?:installs|installed|pulls|pulled|resolves|resolved|downloads|downloaded)\s+(?:the\s+|a\s+)?(?:py)?torch"
    r"(?:\s+v?\d+(?:\.\d+)+)?\s+(?:with|for)\s+(?:the\s+)?cpu\b(?![- ]?(?:and|\+|/))",
    re.IGNORECASE,
)
# "the CPU version" in other languages (es, pt, de, fr, it, ru, ja): read on a line that names torch.
CPU_VERSION_OTHER = re.compile(
    r"versi[oó]n (?:de |para )?cpu|vers[aã]o (?:de |para )?cpu|cpu-version|version cpu|versione cpu|"
    r"cpu[- ]?верси|верси\w* (?:для )?cpu|cpu版",
    re.IGNORECASE,
)
TORCH_NAMED = re.compile(r"(?<![A-Za-z0-9_])(?:py)?torch(?![A-Za-z0-9_])", re.IGNORECASE)
# Not a CPU build being the problem: the user asks for one, or compares CPU and GPU speed.
CPU_WANTED = re.compile(
    r"\b(?:conda|mamba|micromamba)\s+install\b(?:[^\n]*\bcpuonly\b|[^\n,;`]*(?<![\w-])pytorch-cpu\b)|"
    r"\b(?:want|need|prefer)s?\s+(?:the |a |only )?cpu\b|"
    r"--(?:extra-)?index-url\s+\S*/whl/cpu",
    re.IGNORECASE,
)


def cpu_torch_in_words(lines: list[str]) -> Match | None:
    """The user says the installer gave them the CPU build of torch (in words, no build tag shown): the CPU build
    is why CUDA is unused. Words are not a tool's output, so this is a likely cause (a warning), not a verdict.
    Not when the user asks for the CPU build (a cpuonly install, the /whl/cpu index, "I want the CPU version")."""
    gated = _gate(lines, ("cpu", "版"))
    if any(CPU_WANTED.search(line) for line in gated if line):
        return None
    for no, text in enumerate(gated, start=1):
        if (
            CPU_TORCH_WORDS.search(text)
            or CPU_BUILD_GIVEN.search(text)
            or ((CPU_VERSION_OTHER.search(text) or CPU_BUILD_DEFAULTED.search(text)) and TORCH_NAMED.search(text))
        ):
            return Match("cpu_only_build", no, text.strip()[:500], False, 0.85)
    return None


# ------------------------------------------------------------------ GPU memory held by a process that is gone

# "the GPU memory is not released", "memory still occupied after I killed the process", "zombie process holds".
MEMORY_NOT_RELEASED = re.compile(
    r"(?:\b(?:gpu |cuda |video )?memory|\bvram)\b[^.\n]{0,40}?\b(?:is |was |isn'?t |wasn'?t |not |never |still )*"
    r"(?:not (?:being )?(?:released|freed|cleared|deallocated)|never (?:released|freed)|still (?:occupied|"
    r"allocated|in use|used|held|full)|"
    r"(?:stays|remains|is left|stay|remain)\s+(?:allocated|occupied|in use|used|full))|"
    # nvidia-smi's numbers in words: "nvidia-smi still shows 20GB used" after the program is gone.
    r"nvidia-smi\b[^.\n]{0,20}?\b(?:still\s+)?(?:shows?|says|reports?)\s+[\d.]+\s*(?:gb|gib|mib|mb)\s+"
    r"(?:used|in use|occupied|allocated)|"
    r"显存\S{0,6}(?:没有|未|不)(?:被)?释放|显存\S{0,4}(?:一直|还|仍)\S{0,2}(?:占用|被占)",
    re.IGNORECASE,
)
# A process left holding the GPU, named as such.
LEFTOVER_PROCESS = re.compile(
    r"\b(?:zombie|orphan(?:ed)?|defunct|leftover|dangling) (?:python |training )?process(?:es)?\b|僵尸进程",
    re.IGNORECASE,
)
# The program that had the memory is gone: stopped with Ctrl-C, killed, crashed, finished.
PROCESS_GONE = re.compile(
    r"ctrl[- +]?c|\bkill(?:ed|ing)?\b|\b(?:stopped|terminated|interrupted|crashed|exited|finished|closed|ended)\b|"
    r"\bstop(?:ping)? the (?:training|process|job|script|program)\b|中断|终止|结束|关闭",
    re.IGNORECASE,
)


def memory_not_released(lines: list[str]) -> Match | None:
    """The user says GPU memory stays in use after their program stopped (Ctrl-C, a crash, a killed job): a
    leftover process holds it, and the next run runs out of memory because of it, not because of its own size."""
    low = [line[:MAX_LINE].lower() for line in lines]
    # A cheap gate (the line names memory or a process) keeps a long log's other lines away from the regexes.
    gated = [
        line[:MAX_LINE] if any(w in text for w in ("memory", "vram", "process", "nvidia-smi", "显存", "进程")) else ""
        for line, text in zip(lines, low, strict=True)
    ]
    for no, line in enumerate(gated, start=1):
        if LEFTOVER_PROCESS.search(line):
            return Match("gpu_memory_held_by_others", no, line.strip()[:500], True, 0.85)
    said = next(((no, line) for no, line in enumerate(gated, start=1) if MEMORY_NOT_RELEASED.search(line)), None)
    # Memory in use while the program still runs is the program's own: only a program that is gone leaves it behind.
    if said is None or not any(PROCESS_GONE.search(line[:MAX_LINE]) for line in lines):
        return None
    return Match("gpu_memory_held_by_others", said[0], said[1].strip()[:500], True, 0.85)


# ------------------------------------------------------------------------- nouveau holding an NVIDIA GPU

# lshw's "configuration: driver=nouveau", lspci -k's "Kernel driver in use: nouveau", lsmod's nouveau row.
NOUVEAU_BOUND = re.compile(
    r"\bdriver=nouveau\b|Kernel driver in use:\s*nouveau\b|^\s*nouveau\s+\d+\s+\d+", re.IGNORECASE
)
# nvidia-smi is not there at all (the driver's user-space tools were never installed), in any shell's words.
SMI_MISSING = re.compile(
    r"No such file or directory:?\s*['\"]?nvidia-smi|nvidia-smi\W{0,3}(?:command )?not found|"
    r"'?nvidia-smi'? is not recognized as|cannot find\W+nvidia-smi|nvidia-smi\W+No such file",
    re.IGNORECASE,
)


def nouveau_without_driver(lines: list[str]) -> Match | None:
    """The NVIDIA GPU is bound to nouveau and nvidia-smi does not exist: NVIDIA's driver was never installed (with
    it installed and only its module not loaded, nvidia-smi would exist and fail to communicate)."""
    gated = _gate(lines, ("nouveau",))
    bound = next(((no, line) for no, line in enumerate(gated, start=1) if NOUVEAU_BOUND.search(line)), None)
    if bound is None or not any(SMI_MISSING.search(line[:MAX_LINE]) for line in lines):
        return None
    return Match("no_nvidia_driver", bound[0], bound[1].strip()[:500], True, 0.85)


# ------------------------------------------------------------------------------------- a Mac's CUDA failure

# CUDA failing in any framework's words: the driver API's error names, "no CUDA GPUs found", "none found".
CUDA_FAILURE = re.compile(
    r"\bCUDA_ERROR_\w+|\bcuInit\b|\bCUDA (?:GPUs?|devices?)\b[^\n]{0,20}?\b(?:none|not) found\b|"
    r"\bno CUDA(?:-capable)? (?:GPUs?|devices?)\b|\bCUDA (?:driver|runtime) (?:not found|error)\b|"
    r"\bCUDA driver (?:library )?(?:cannot be found|not found|could not be found)|\bCudaSupportError\b",
    re.IGNORECASE,
)


# CUDA not working in the user's or a tool's words, as a Mac text says it: is_available() answering False or
# choosing 'cpu' (the usual `'cuda' if torch.cuda.is_available() else 'cpu'` line), "CUDA is not supported / not
# available / doesn't work", "no CUDA", torch.amp's "User provided device_type of 'cuda', but CUDA is not available".
MAC_NO_CUDA = re.compile(
    r"is_available\(\)[^\n]{0,80}?(?:[`'\"]cpu[`'\"]|\bfalse\b)|"
    r"\bcuda\b[^\n.]{0,40}?\b(?:is not|isn'?t|not|doesn'?t|does not|won'?t|cannot|can'?t)\s+(?:be\s+)?"
    r"(?:supported|available|work|exist|run|used?)\b|"
    r"\b(?:no|without)\s+cuda\b(?![-_ ](?:toolkit|home|path))",
    re.IGNORECASE,
)


def mac_cuda_failure(lines: list[str], matches: list[Match], *, unavailable: bool = False) -> Match | None:
    """On a Mac, any CUDA failure (whatever tool prints it: jcuda, CuPy, numba; or is_available() answering False)
    means CUDA does not exist there: the answer is MPS (or the CPU), not a driver or a CUDA build. Only when no other
    reading names the Mac."""
    if any(m.id == "macos_no_cuda_use_mps" for m in matches):
        return None
    failed = next(((no, line) for no, line in enumerate(lines, start=1) if CUDA_FAILURE.search(line[:MAX_LINE])), None)
    if failed is None and unavailable:
        failed = next(((no, line) for no, line in enumerate(lines, start=1) if "is_available" in line[:MAX_LINE]), None)
    if failed is None:
        said = ((no, line) for no, line in enumerate(lines, start=1) if MAC_NO_CUDA.search(line[:MAX_LINE]))
        failed = next(said, None)
    if failed is None:
        return None
    return Match("macos_no_cuda_use_mps", failed[0], failed[1].strip()[:500], True, 0.85)


# ------------------------------------------------------------------- what the text itself rules out

# A REPL or script printing torch.version.cuda, then its value ("'11.3'", "11.3"): the build is a CUDA build.
VERSION_CUDA_CODE = re.compile(r"torch\.version\.cuda\b")
VERSION_CUDA_VALUE = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?['\"]?\d{1,2}\.\d{1,2}['\"]?\s*$")
CUDA_BUILD_SHOWN = re.compile(
    r"(?<![A-Za-z0-9_.])\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?\+cu\d{2,3}(?!\d)|CUDA used to build PyTorch:\s*\d|"
    r"torch\.version\.cuda\W{0,8}['\"]?\d{1,2}\.\d",
    re.IGNORECASE,
)
# torch itself naming the GPU (get_device_name's answer, "Using device: cuda:0 (NVIDIA GeForce ...)").
GPU_MODEL = NVIDIA_GPU_MODEL


# An install command or a wheel index names the build asked for (often the fix), not the one that runs.
# So does a pin ("can't find torch==2.4.1+cu121") and a resolver's answer ("from versions: ...").
INSTALL_LINE = re.compile(
    r"\binstall\b|\.whl\b|download\.pytorch\.org|--index-url|-f https?:|from versions:|Could not find a version|"
    # A pin asks for a build; pip's list row "[pip3] torch==" tells what is installed. ASCII bounds: CJK text runs in.
    r"No matching distribution|Looking in|requirement|(?<![A-Za-z0-9_])(?<!\] )torch(?:vision|audio)?==",
    re.IGNORECASE,
)


# A script's own printout of the build: a label line ("CUDA VERSION:", "torch.version.cuda") and the value on the
# next line ("11.3"). nvidia-smi's "CUDA Version: 12.2" (the driver's, on one line) is not this.
CUDA_BUILD_LABEL = re.compile(
    r"^\s*(?:torch\.version\.cuda|(?:torch |pytorch )?cuda (?:version|build)|built with cuda)\s*[:=]?\s*$",
    re.IGNORECASE,
)


def shows_cuda_build(lines: list[str]) -> bool:
    """The text shows the build that runs is a CUDA one: a +cuXYZ version outside an install command or pin (those
    name the build asked for, often the fix), collect_env's "CUDA used to build PyTorch: 12.1", or torch.version.cuda
    (or a labelled "CUDA version:") answered with a number. The one reading of "a CUDA build is shown"."""
    gated = _gate(lines, ("+cu", "cuda used", "version.cuda"))
    if any(CUDA_BUILD_SHOWN.search(line) and not INSTALL_LINE.search(line) for line in gated if line):
        return True
    code = next((no for no, line in enumerate(lines) if VERSION_CUDA_CODE.search(line[:MAX_LINE])), None)
    if code is not None and any(VERSION_CUDA_VALUE.match(line[:MAX_LINE]) for line in lines[code + 1 :]):
        return True
    return any(
        CUDA_BUILD_LABEL.match(lines[i][:200]) and VERSION_CUDA_VALUE.match(lines[i + 1][:200])
        for i in range(min(len(lines), 5000) - 1)
    )


# CUDA_VISIBLE_DEVICES set in a shell, an env prefix or os.environ: "export CUDA_VISIBLE_DEVICES = 0", "=-1", "=''".
VISIBLE_ASSIGN = re.compile(r"CUDA_VISIBLE_DEVICES\s*[\"']?\]?\s*=\s*(?P<value>[\"']?[^\s\"';]*[\"']?)")


def selects_first_gpu(assignment: str) -> bool:
    """CUDA_VISIBLE_DEVICES naming GPU 0 ("=0", "=0,1") leaves the first GPU visible on any machine that has one: it
    cannot be why CUDA sees none. Hiding takes -1, an empty value, or only indices the machine lacks."""
    value = assignment.split("=", 1)[1].strip().strip("\"'")
    return "0" in value.split(",")


# The text reports a solution: an assignment in it is then the fix that worked (the code had set another index).
SOLVED = re.compile(
    r"\b(?:solved|fixed|resolved|overcome|managed to|works? now|working now|the fix|solution|workaround|walkaround|"
    r"work(?:s|ed) for me|did the trick)\b|解决|解決",
    re.IGNORECASE,
)


# The user reports the problem gone (not a workaround offered, not "the solution would be").
RESOLVED = re.compile(
    r"\b(?:solved|fixed|resolved|works? now|working now|work(?:s|ed) for me|did the trick)\b|解决了|解決", re.IGNORECASE
)


def visible_devices_fix_reported(lines: list[str], *, no_device: bool) -> Match | None:
    """CUDA saw no device (``no_device``), and the text reports it solved by a CUDA_VISIBLE_DEVICES assignment on the
    same line or the two after: the device selection the code had was the cause, so the generic "no GPU" readings of
    the message go."""
    if not no_device:
        return None
    for no, line in enumerate(lines, start=1):
        if not RESOLVED.search(line[:MAX_LINE]):
            continue
        for at in range(no, min(no + 3, len(lines) + 1)):
            found = lines[at - 1][:MAX_LINE]
            if VISIBLE_ASSIGN.search(found):
                return Match("cuda_visible_devices_hides_gpus", at, found.strip()[:500], True, 0.85)
    return None


def _visible_devices_keep_first_gpu(lines: list[str]) -> bool:
    """Every CUDA_VISIBLE_DEVICES the text sets keeps GPU 0 visible (and it sets at least one), as the user's own
    setting: not offered as the fix that solved it."""
    found = [m.group(0) for line in lines for m in VISIBLE_ASSIGN.finditer(line[:MAX_LINE])]
    if not found or any(SOLVED.search(line[:MAX_LINE]) for line in lines):
        return False
    return all(selects_first_gpu(a) for a in found)


def ruled_out_guesses(lines: list[str], matches: list[Match]) -> list[Match]:
    """A generic message ("No CUDA GPUs are available") allows many causes; the same text may rule some out. A
    CUDA build shown (a +cuXYZ version, torch.version.cuda printing a number) is not a CPU build; an NVIDIA GPU
    named by model is there; CUDA_VISIBLE_DEVICES=0 hides no GPU. Those guesses are dropped; what the text does not
    contradict stays."""
    out = matches
    if shows_cuda_build(lines):
        out = [m for m in out if m.specific or m.id not in ("cpu_only_build", "source_build_without_cuda")]
    if any(GPU_MODEL.search(line) for line in _gate(lines, NVIDIA_WORDS) if line):
        # A guess goes; so does a statement whose own sentence also names the NVIDIA GPU ("Intel UHD and an RTX 3060").
        out = [m for m in out if m.id != "no_nvidia_gpu" or (m.specific and not GPU_MODEL.search(m.line))]
    if _visible_devices_keep_first_gpu(lines):
        out = [m for m in out if m.specific or m.id != "cuda_visible_devices_hides_gpus"]
    return out


# ------------------------------------------------------------------------ facts stated in a user's own list

# "- **PyTorch Version**: 2.2.0+cu121", "torch 2.2.0+cu121", "torch.__version__ = '2.1.0+cu118'": a CUDA build
# tagged with its CUDA version, on a line about torch (not an install command, which names what was asked for).
STATED_TORCH = re.compile(
    r"(?<![A-Za-z0-9_.])(?:py)?torch(?:\.__version__)?(?![A-Za-z0-9_-])[^\n\d]{0,30}?(?<![A-Za-z0-9_.])"
    r"(?P<version>\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev)\d+)?\+cu(?P<cuda>\d{2,3}))\b",
    re.IGNORECASE,
)
# "- **GPU**: NVIDIA GeForce RTX 5090 (32GB GDDR7)", "Graphics card: RTX 3060": a labelled line naming one NVIDIA model.
STATED_GPU = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?[*_`]*\s*(?:gpus?|gpu model|graphics(?: card)?|video card|card)\s*[*_`]*\s*[:=]\s*"
    r"[*_`]*\s*(?P<name>(?:NVIDIA\s+)?(?:GeForce|Quadro|Tesla|TITAN|RTX|GTX)\b[^(,;\n]{1,40}?)\s*(?:\(|,|;|$)",
    re.IGNORECASE,
)
# "I have an RTX 5090", "I'm using a GeForce RTX 4090", "my new RTX 5080": the user's own GPU named in a sentence.
# Data-centre and workstation models too ("I have an a100 machine", "my Tesla V100", "I'm using an RTX A6000").
OWN_GPU = re.compile(
    r"\b(?:i have|i've got|i got|i'?m using|i am using|i use|i own|my(?: new)?|we have|we'?re using|we are using|"
    r"our(?: new)?)\s+(?:an?\s+|the\s+)?"
    r"(?P<name>(?:NVIDIA\s+)?(?:GeForce\s+)?(?:RTX|GTX)\s?\d{3,4}(?:\s?(?:Ti|SUPER))?|(?:NVIDIA\s+)?(?:Tesla\s+)?"
    r"(?:[ABHV]100|A[1-4]0|A800|H[28]00|[BH]200|L40S?|V100S?|P100|T4|RTX\s?A[2-6]000)(?![\w-]))",
    re.IGNORECASE,
)
# The GPU named as what the user's machine or card IS, often the answer to "which GPU?": "it is GeForce RTX 3080 Ti",
# "my GPU is an RTX 3090", "the card is a Tesla V100", "mine is a 4090"-style full names only. "not"/"no" after "is"
# never matches (the name must follow at once), and a line naming two models is dropped by the one-model check below.
GPU_IS = re.compile(
    r"(?:^|[.!?]\s+|\b(?:my|our|the)\s+(?:gpu|graphics card|video card|card)\s+)"
    r"(?:(?:it|this|mine|that)(?:'s|\s+is)\s+|is\s+)(?:an?\s+|the\s+)?"
    r"(?P<name>(?:NVIDIA\s+)?(?:GeForce\s+)?(?:RTX|GTX)\s?\d{3,4}(?:\s?(?:Ti|SUPER))?|(?:NVIDIA\s+)?(?:Tesla\s+)?"
    r"(?:[ABHV]100|A[1-4]0|A800|H[28]00|[BH]200|L40S?|V100S?|P100|T4|RTX\s?A[2-6]000)(?![\w-]))",
    re.IGNORECASE,
)
# A pin the project sets, not an install the user ran: "the requirement in the txt file, torch==1.7.1+cu101".
REQUIREMENT = re.compile(
    r"\brequire(?:ment|ments|d|s)\b|\bpinn(?:ed|s)\b|requirements\.txt|environment\.ya?ml|setup\.py|pyproject",
    re.IGNORECASE,
)
# Cheap gate for the two regexes above: a line that names none of these names no NVIDIA model.
OWN_GPU_WORDS = (
    "rtx",
    "gtx",
    "geforce",
    "quadro",
    "tesla",
    "titan",
    "100",
    "a10",
    "a20",
    "a30",
    "a40",
    "800",
    "200",
    "l40",
    "t4",
)
# CUDA_VISIBLE_DEVICES as an environment listing or export states it: "CUDA_VISIBLE_DEVICES=-1" alone on its line.
STATED_VISIBLE = re.compile(
    r"^\s*(?:export\s+|set\s+|\$env:)?CUDA_VISIBLE_DEVICES\s*=\s*[\"']?(?P<value>[^\s\"']*)[\"']?\s*$"
)


def visible_devices_hide_all(lines: list[str], *, unavailable: bool) -> Match | None:
    """CUDA_VISIBLE_DEVICES stated as -1 or empty (an export, an env listing, a collect-env fork's variables) while
    CUDA sees no GPU: that value hides every GPU on any machine, so it is the cause whatever else the text shows."""
    if not unavailable:
        return None
    for no, line in enumerate(_gate(lines, ("cuda_visible_devices",)), start=1):
        m = STATED_VISIBLE.match(line)
        if m and (m.group("value") == "" or m.group("value").startswith("-")):
            return Match("cuda_visible_devices_hides_gpus", no, line.strip()[:500], True, 0.9)
    return None


# MIG named as on: "MIG mode enabled", "the configuration for MIG", "Multi-Instance GPU", nvidia-smi -L's "MIG 3g.20gb
# Device 0" or a MIG-<uuid>. Upper-case MIG only: "mig" is a word in other languages and other tools.
# nvidia-smi's table has a "MIG M." column on every GPU, and "MIG Mode ... Disabled" / "N/A" says it is off: not MIG on.
MIG_STATED = re.compile(r"(?<![\w-])MIG(?!\w)(?! M\.)|(?i:multi[- ]instance gpu)")
MIG_OFF = re.compile(r"\bMIG\b\W{0,3}(?:mode\W{0,6})?(?:current\W{0,6})?(?:disabled|n/a|off)\b", re.IGNORECASE)
# What a process sees of a MIG GPU: one device, or none ("device_count() shows only one gpu", "returns 1").
ONE_OR_NO_DEVICE = re.compile(
    r"device_count\(\)[^\n]{0,40}?(?:\b(?:only|just)\s+(?:one|1|a single)\b|(?:returns?|shows?|is|gives?|=+|:)\s*"
    r"[`'\"]?[01]\b)|\b(?:only|just)\s+(?:one|1|a single)\s+(?:gpu|device)s?\b[^.\n]{0,30}?"
    r"\b(?:visible|detected|found|seen|shown|listed|recogni[sz]ed)\b|"
    r"\bsees?\s+(?:only\s+)?(?:one|1|a single)\s+(?:gpu|device)\b",
    re.IGNORECASE,
)


def mig_in_words(lines: list[str]) -> Match | None:
    """MIG stated as configured on the GPU while torch is said to see one device: a CUDA process enumerates at most
    one MIG instance (picked by its MIG UUID), however many slices there are, so MIG is why the count is short. A
    likely cause read from words, not the machine's own answer."""
    if not any(MIG_STATED.search(cut := line[:MAX_LINE]) and not MIG_OFF.search(cut) for line in lines):
        return None
    for no, line in enumerate(lines, start=1):
        if ONE_OR_NO_DEVICE.search(line[:MAX_LINE]):
            return Match("mig_multiple_instances", no, line.strip()[:500], False, 0.8)
    return None


# ------------------------------------------------------------ an idle GPU while data loading is named as slow

# "the GPU-Util is 0", "GPU utilization stays at 5%", "low GPU usage", "GPU利用率为0", "the GPU sits at 0-10%
# utilization": the GPU is mostly idle.
LOW_GPU_UTIL = re.compile(
    r"(?:gpu[- ]?util\w*|gpu (?:usage|load)|volatile gpu-util)\b[^.\n%]{0,25}?(?:\b(?:[0-9]|1[0-9])\s*%|\b0\b|\blow\b|"
    r"\bzero\b)|\b(?:low|0\s*%|zero|poor)\s+gpu[- ]?(?:util\w*|usage|load)\b|gpu\s*利用率\S{0,6}?(?:低|0|为0)|"
    # the figure between the GPU and the word: "the GPU sits at 0-10% utilization", "GPU at 5 % usage"
    r"\bgpu\b[^.\n%]{0,20}?(?<![\d.])(?:[0-9]|1[0-9])(?:\s*[-~]\s*(?:[0-9]|1[0-9]|20))?\s*%\s*(?:util\w*|usage|load)\b",
    re.IGNORECASE,
)
# ... and not when the same line says it then climbs high ("sits at 0-5% for the first minute, then goes to 98%"): a
# warm-up (the first batches, the dataset's cache filling), not a loader that cannot keep up.
RECOVERS_AFTER = re.compile(r"\bthen\b[^.\n]{0,40}?(?<![\d.])(?:[5-9]\d|100)\s*%", re.IGNORECASE)
# The data side named: the DataLoader, loading or preprocessing the data, its workers, the disk.
DATA_NAMED = re.compile(
    r"data ?loader|data[- ]loading|\bload(?:ing|s)?\s+(?:the\s+)?(?:data|batch|sample|images?|audio)|data pipeline|"
    r"num_workers|\bpreprocess\w*|\bI/?O[- ]bound|\bdisk\s+(?:read|I/?O)|数据加载|数据读取",
    re.IGNORECASE,
)
# Not the loader: the work itself on the CPU ("used: False", device='cpu', "on the CPU").
WORK_ON_CPU = re.compile(
    r"\bused: False\b|device\(type='cpu'\)|device=['\"]cpu['\"]|\b(?:runs?|is|are) on (?:the )?cpu\b", re.IGNORECASE
)


def loader_starves_gpu_in_words(lines: list[str]) -> Match | None:
    """The GPU said to sit idle (utilisation low or 0) in a text that names the data loading as slow: the input
    pipeline cannot feed the GPU. A likely cause from words; not when the text shows the work itself on the CPU."""
    gated = _gate(lines, ("util", "usage", "load", "利用率"))
    low = next(
        (
            no
            for no, line in enumerate(gated, start=1)
            if line and (m := LOW_GPU_UTIL.search(line)) and not RECOVERS_AFTER.search(line[m.end() :])
        ),
        None,
    )
    if low is None or not any(DATA_NAMED.search(line[:MAX_LINE]) for line in lines):
        return None
    if any(WORK_ON_CPU.search(line[:MAX_LINE]) for line in lines):
        return None
    return Match("dataloader_starvation", low, lines[low - 1].strip()[:500], False, 0.7)


# ------------------------------------------------------------------ a Slurm job step that asked for no GPU

# A Slurm submission as typed or scripted: "srun python train.py", "$ salloc -N1", "#SBATCH --time=1:00:00".
SLURM_LAUNCH = re.compile(r"^\s*(?:[$>#%]\s*)?(?:srun|salloc|sbatch)\s|^\s*#SBATCH\b")
# Any way of asking Slurm for a GPU: --gres=gpu[:type]:N, --gpus(-per-node|-per-task|-per-socket), -G N, --tres-per-*.
SLURM_GPU_REQUEST = re.compile(
    r"--gres[= ]\S*gpu|--gpus\b|--gpus-per-\w+|(?<!\S)-G\s*\d|--tres-per-\w+[= ]\S*gpu", re.IGNORECASE
)
# The answer printed under the command: "False", "# False", "Out[1]: False".
FALSE_ANSWER = re.compile(r"^\s*(?:#\s*|Out\[\d+\]:\s*)?False\s*$")


def slurm_step_without_gpu(lines: list[str], *, unavailable: bool) -> Match | None:
    """The text launches work through Slurm (srun / salloc / sbatch, #SBATCH lines) and no line asks for a GPU, while
    CUDA sees none there: Slurm hides every GPU a job did not request, so the allocation is why."""
    launches = [(no, line[:MAX_LINE]) for no, line in enumerate(lines, start=1) if SLURM_LAUNCH.match(line[:MAX_LINE])]
    if not launches or any(SLURM_GPU_REQUEST.search(line[:MAX_LINE]) for line in lines):
        return None
    for no, line in launches:
        # "srun python -c '...is_available()...'" answered False on one of the next two lines.
        if "is_available" in line and any(
            FALSE_ANSWER.match(lines[at][:MAX_LINE]) for at in range(no, min(no + 2, len(lines)))
        ):
            return Match("scheduler_no_gpu_allocated", no, line.strip()[:500], False, 0.8)
    if unavailable:
        no, line = launches[0]
        return Match("scheduler_no_gpu_allocated", no, line.strip()[:500], False, 0.7)
    return None


def stated_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, object]:
    """Facts the user's own list or sentences state: the torch build with its CUDA tag, the one NVIDIA GPU model a
    labelled line names, CUDA_VISIBLE_DEVICES as set. The caller lets a tool's output win over these."""
    facts: dict[str, object] = {}
    gpus: set[str] = set()
    gpu_line: tuple[int, str] | None = None
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        low = line.lower()  # cheap substring gates first: a long log has few lines worth these regexes
        t = STATED_TORCH.search(line) if "+cu" in low else None
        if t and "torch.version" not in facts and not INSTALL_LINE.search(line):
            cuda = t.group("cuda")
            facts["torch.version"] = t.group("version")
            facts["torch.cuda_build"] = f"{cuda[:-1]}.{cuda[-1]}"
            note_source(sources, "torch.version", no, line)
            note_source(sources, "torch.cuda_build", no, line)
        elif t and "requested.torch_version" not in facts and REQUIREMENT.search(line):
            # The project's pin ("the requirement torch==1.7.1+cu101"): the build the user is told to install.
            cuda = t.group("cuda")
            facts["requested.torch_version"] = t.group("version")
            facts["requested.cuda_build"] = f"{cuda[:-1]}.{cuda[-1]}"
            note_source(sources, "requested.torch_version", no, line)
        named = any(word in low for word in OWN_GPU_WORDS)
        stated = STATED_GPU.match(line) if named else None
        owned = [*OWN_GPU.finditer(line), *GPU_IS.finditer(line)] if named else []
        for g in [stated] if stated else owned:
            gpus.add(g.group("name").strip())
            gpu_line = gpu_line or (no, line.strip()[:500])
        v = STATED_VISIBLE.match(line) if "cuda_visible_devices" in low else None
        if v:
            facts["cuda.visible_devices"] = v.group("value")
            sources["cuda.visible_devices"] = (no, line.strip()[:500])
    # One model, however often it is named ("RTX 5090", "NVIDIA GeForce RTX 5090"): compared without vendor words.
    models = {re.sub(r"(?i)\b(?:nvidia|geforce)\s+|\s", "", g).lower() for g in gpus}
    if len(models) == 1 and gpu_line is not None:
        facts["reported.gpus"] = [{"index": 0, "name": max(gpus, key=len)}]
        sources.setdefault("reported.gpus", gpu_line)
    return facts


# ------------------------------------------------------------------- another job said to be on the GPU

# "GPU 0 is used by another job", "someone else is training on the GPU", "gpu 0 是tf 在跑的代码" (GPU 0 runs TF code),
# "显卡被别的程序占用" (the card is taken by another program).
OTHER_JOB_ON_GPU = re.compile(
    r"\b(?:another|other|someone else'?s?|a different|a second|my colleague'?s?)\s+(?:\w+\s+)?(?:process|program|job|"
    r"user|model|training|experiment|notebook|kernel|service)s?\b[^.\n]{0,40}?\b(?:is |are |was |were )?"
    r"(?:running|using|occupying|holding|training|on)\b|"
    r"\bgpu\s*#?\d*\s+(?:is |was )?(?:already )?(?:being )?(?:used|occupied|taken)\s+by\b|"
    r"(?:gpu|显卡|卡)\s*\d*\s*(?:是|被|上有|上面有|正在)[^\n。，,]{0,20}?(?:在跑|在用|占用|跑着|运行)|"
    r"(?:别的|其他|其它|另一个)(?:程序|进程|任务|人)\S{0,6}(?:占用|在用|在跑)",
    re.IGNORECASE,
)


# The same words denied: "there is no other process running", "I don't run any other program", "I am not using another
# process", "没有别的程序在跑": the negation right before (one word between at most, so "not sure but another process
# is running" still counts). A user ruling others out says the job itself is what fills the GPU.
OTHER_JOB_DENIED = re.compile(
    r"(?:\b(?:no|not|nor|none|never|without|nothing|any)\b|n't\b|没有|并没有|无)(?:\s+[\w']+)?\s*$",
    re.IGNORECASE,
)


OTHER_JOB_WORDS = (
    "gpu",
    "卡",
    "other",
    "someone",
    "different",
    "second",
    "colleague",
    "别的",
    "其他",
    "其它",
    "另一个",
)


def _other_job_said(line: str) -> bool:
    """Whether the line says another job is on the GPU, not that none is (a negation earlier in the same clause)."""
    return any(not OTHER_JOB_DENIED.search(line[: m.start()]) for m in OTHER_JOB_ON_GPU.finditer(line))


def other_job_on_gpu(lines: list[str], matches: list[Match]) -> Match | None:
    """The user says another program, job or person runs on the GPU they use: with an out-of-memory error, that
    job's memory is why this one runs out (a verdict); without one, a guess."""
    said = next(
        ((no, line) for no, line in enumerate(_gate(lines, OTHER_JOB_WORDS), start=1) if _other_job_said(line)),
        None,
    )
    if said is None:
        return None
    # that job stopped by the user and the run failing as before: it was not (only) that job (killed_holder)
    oom = any(m.id == "cuda_out_of_memory" for m in matches) and not killed_still_fails(lines)
    return Match("gpu_memory_held_by_others", said[0], said[1].strip()[:500], oom, 0.85 if oom else 0.5)


# ------------------------------------------------------------ CUDA works in the user's check, not in the app

# "Although torch.cuda.is_available() returns True, ... after launching webui-user.bat": the user's own Python has
# a working CUDA torch; the app's launcher builds and runs its own environment (venv) with another torch.
CONTRAST = re.compile(r"\b(?:although|though|but|however|yet|while|still)\b", re.IGNORECASE)
APP_LAUNCHER = re.compile(
    r"[\w-]+\.(?:bat|cmd|ps1)\b|\b(?:webui|launch|run|start|main|app)(?:-user)?\.(?:sh|py)\b|"
    r"\b(?:launch(?:ing|er|ed)?|start(?:ing|ed)?|run(?:ning)?)\s+(?:the\s+)?(?:web ?ui|app|program|launcher|gui)\b",
    re.IGNORECASE,
)


def works_in_own_check_not_app(lines: list[str]) -> Match | None:
    """The user's own check says CUDA works while the app's launcher (a .bat, webui.sh, launch.py) fails: the
    launcher runs its own environment, not the Python the user checked. A likely cause, not a verdict (the app's
    own error is often only in a screenshot)."""
    for no, text in enumerate(_gate(lines, ("is_available",)), start=1):
        # Only the answer on the sentence's own line: the contrast with the app is read from that sentence.
        if not available_true_on_line(text):
            continue
        near = " ".join(x[:MAX_LINE] for x in lines[no - 1 : no + 2])
        if CONTRAST.search(near) and APP_LAUNCHER.search(near):
            return Match("wrong_interpreter_or_kernel", no, text.strip()[:500], False, 0.8)
    return None


# ---------------------------------------------------------------- torch that does not import has no build type yet

NOT_COMPILED = re.compile(r"not compiled with CUDA", re.IGNORECASE)


def import_failure_first(report: Report, lines: list[str], matches: list[Match]) -> list[Match]:
    """torch fails to import: whatever build it is (a "+cpu" tag, "CPU version" in the user's list) never ran, and
    the user may want exactly that build. The import failure is the problem; a build-type reading that rests only on a
    version tag or words (no "not compiled with CUDA" from a torch that ran) goes, from the matches and the rules'
    findings alike."""
    failed = any(m.id == "torch_import_error" and m.specific for m in matches) or any(
        f.id == "torch_import_error" and f.severity is Severity.ERROR for f in report.findings
    )
    if not failed or any(NOT_COMPILED.search(line[:MAX_LINE]) for line in lines):
        return matches
    report.findings[:] = [f for f in report.findings if f.id != "cpu_only_build"]
    return [m for m in matches if m.id != "cpu_only_build"]
