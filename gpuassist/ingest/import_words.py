"""The user says, in words, that it is ``import torch`` that fails.

A generic loader message ("libiomp5.so: cannot open shared object file", "undefined symbol", "DLL load failed") blames
torch only when torch is what was being imported (paste_causes.adjust_matches): ONNX Runtime or CTranslate2 missing
cuDNN is not a torch problem. A traceback frame or a ``>>> import torch`` prompt shows that; a report in prose says it
instead ("I got the error by import torch", "when importing torch", "import torch fails with", "torch fails to
import", "cannot import torch"). Those words are the same evidence. A text that also imports another package that
loads native libraries (``import onnxruntime``, "importing tensorflow") leaves the failing import undecided, and a
question ("does import torch fail?") states nothing, and neither does a sentence that denies it ("the error does not
happen when importing torch") or tells of a failure already fixed ("import torch used to fail, I fixed that").
Sentences are judged one by one (ingest/prose.py), so "import torch fails? No, torch imports." is a question and
an answer, not a statement of the failure.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.lines import MAX_LINE

_TORCH = r"[`'\"]?(?:import(?:ing)?\s+)?(?:py)?torch\b[`'\"]?"
TORCH_IMPORT_SAID = re.compile(
    # "(error|fails) when/while/by/on I import(ing) torch", "whenever I run import torch", and the moment said
    # otherwise: "as soon as I import torch", "every time I import torch", "right after import torch"
    r"\b(?:when(?:ever)?|while|by|on|upon|during|at|as\s+soon\s+as|(?:every|each)\s+time|the\s+moment|once|"
    r"(?:right|just|immediately|directly)\s+(?:after|on|at|when))\s+(?:(?:I|we)\s+)?(?:try(?:ing)?\s+to\s+|tried\s+to\s+)?"
    r"(?:run(?:ning)?\s+|do(?:ing)?\s+|type\s+|typing\s+)?"
    r"[`'\"]?import(?:ing)?\s+(?:the\s+)?(?:py)?torch\b|"
    # "import torch fails / gives / raises ...", "importing torch failed"
    r"[`'\"]?\bimport(?:ing)?\s+(?:py)?torch\b[`'\"]?\s+(?:(?:still|now|also)\s+)?"
    r"(?:fails|failed|failing|gives|gave|raises|raised|throws|threw|crash\w*|errors?\b|results?\s+in)|"
    # "torch fails to import", "cannot import torch", "unable to import torch"
    r"\b(?:py)?torch\s+(?:fails|failed|won'?t|will\s+not|can(?:no|')t|does\s*n[o']?t|did\s*n[o']?t)\s+(?:to\s+)?import|"
    r"\b(?:can(?:no|')t|could\s*n[o']?t|unable\s+to|failed\s+to|fail\s+to)\s+import\s+" + _TORCH,
    re.IGNORECASE,
)
# Another package with native libraries being imported in the same text: the failing import is not known to be torch.
OTHER_IMPORT = re.compile(
    r"\bimport(?:ing)?\s+(?!torch\b|pytorch\b)(?:onnxruntime|tensorflow|ctranslate2|faster_whisper|jax|cupy|paddle\w*|"
    r"mxnet|cv2|tensorrt|triton|bitsandbytes|xformers|flash_attn|vllm|llama_cpp)\b",
    re.IGNORECASE,
)

# A denial (prose.negated) in the clause before the words ("the error does not happen when importing torch, only ...").
CLAUSE_CUT = re.compile(r"[,;:]|\b(?:but|whereas|though|although|only)\b", re.IGNORECASE)
# The import said to succeed in the words right after it ("every time I import torch it works, but onnxruntime ..."):
# up to the end of that clause.
SUCCEEDS_AFTER = re.compile(
    r"^[^,;:.]{0,30}?\b(?:works?|worked|succeeds?|succeeded|is\s+fine|goes\s+fine|runs?\s+fine|is\s+ok(?:ay)?)\b",
    re.IGNORECASE,
)
# A failure told as past and over: "import torch used to fail", "previously ... I fixed it".
OVER = re.compile(r"\b(?:used\s+to|previously|fixed|solved|resolved)\b", re.IGNORECASE)


def _states_torch_import_failing(sentence: str) -> bool:
    if prose.is_question(sentence) or OVER.search(sentence):
        return False
    for found in TORCH_IMPORT_SAID.finditer(sentence):
        clause = CLAUSE_CUT.split(sentence[: found.start()])[-1]
        if not prose.negated(clause) and not SUCCEEDS_AFTER.search(sentence[found.end() :]):
            return True
    return False


def torch_import_said(lines: list[str]) -> bool:
    """The text says in words that importing torch is what fails (and names no other native import)."""
    if any(OTHER_IMPORT.search(line[:MAX_LINE]) for line in lines):
        return False
    return any(_states_torch_import_failing(sentence) for _, sentence in prose.sentences(lines))
