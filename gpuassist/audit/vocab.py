"""What names in a script mean: imports resolved to qualified names, and the PyTorch vocabulary the
analyser knows (tensor factories, layers with parameters, losses, model constructors, host syncs).

Knowing that ``nn.Linear`` is ``torch.nn.Linear`` and ``DataLoader`` is ``torch.utils.data.DataLoader``
however they were imported is what keeps the audit precise: it only reasons about calls it can name.
"""

from __future__ import annotations

import ast
import re

# torch.<name>(...) creates a tensor on the default device (the CPU) unless device= is given.
FACTORIES = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "tensor",
        "as_tensor",
        "from_numpy",
        "empty_strided",
        "tril_indices",
        "triu_indices",
        "normal",
        "Tensor",
        "FloatTensor",
        "LongTensor",
        "IntTensor",
        "DoubleTensor",
        "HalfTensor",
        "BoolTensor",
        "ByteTensor",
    }
)
# torch.<name>_like(x) and x.new_<name>(...) follow x's device.
LIKE_FACTORIES = frozenset(
    {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like"}
)
# torch.<name>(a, b, ...) combines tensors: every tensor argument must be on one device.
COMBINING_FUNCS = frozenset(
    {
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "dstack",
        "matmul",
        "mm",
        "bmm",
        "einsum",
        "where",
        "add",
        "sub",
        "subtract",
        "mul",
        "multiply",
        "div",
        "divide",
        "maximum",
        "minimum",
        "dot",
        "cdist",
        "gather",
        "index_select",
        "masked_select",
        "lerp",
        "addmm",
        "baddbmm",
        "cross",
        "outer",
        "tensordot",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "bucketize",
    }
)
# tensor.<name>(other, ...) combines the receiver with its tensor arguments.
COMBINING_METHODS = frozenset(
    {
        "add",
        "add_",
        "sub",
        "sub_",
        "mul",
        "mul_",
        "div",
        "div_",
        "matmul",
        "mm",
        "bmm",
        "masked_fill",
        "masked_fill_",
        "where",
        "gather",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "index_add",
        "index_add_",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "lerp",
        "lerp_",
        "addcmul",
        "addcmul_",
        "addcdiv",
        "addcdiv_",
        "expand_as",
        "dot",
    }
)
# Reductions that give a 0-dim tensor when no dim is given (``w.sum()``, ``torch.mean(w)``).
FULL_REDUCTIONS = frozenset(
    {
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "norm",
        "std",
        "var",
        "all",
        "any",
        "amax",
        "amin",
        "median",
        "nansum",
        "nanmean",
        "count_nonzero",
        "argmax",
        "argmin",
    }
)
# Methods that wait for the device and copy to the host.
SYNC_METHODS = frozenset({"item", "cpu", "numpy", "tolist"})
# Tensor attributes that are the same tensor (or a view of it).
SAME_TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
# Tensor methods whose result is not a tensor on a device.
NON_TENSOR_METHODS = frozenset(
    {
        "size",
        "dim",
        "numel",
        "element_size",
        "nelement",
        "ndimension",
        "get_device",
        "is_contiguous",
        "stride",
        "data_ptr",
        "storage_offset",
        "keys",
        "__len__",
    }
)
# nn layers that own parameters or buffers (so they must live on the device of their inputs).
PARAMETER_FREE_LAYERS = frozenset(
    {
        "ReLU",
        "ReLU6",
        "GELU",
        "SiLU",
        "Sigmoid",
        "Tanh",
        "Softmax",
        "Softmax2d",
        "LogSoftmax",
        "Softmin",
        "Dropout",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "AlphaDropout",
        "Flatten",
        "Unflatten",
        "Identity",
        "MaxPool1d",
        "MaxPool2d",
        "MaxPool3d",
        "AvgPool1d",
        "AvgPool2d",
        "AvgPool3d",
        "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d",
        "AdaptiveAvgPool3d",
        "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d",
        "AdaptiveMaxPool3d",
        "Upsample",
        "UpsamplingNearest2d",
        "UpsamplingBilinear2d",
        "PixelShuffle",
        "PixelUnshuffle",
        "LeakyReLU",
        "ELU",
        "SELU",
        "CELU",
        "Mish",
        "Hardswish",
        "Hardsigmoid",
        "Hardtanh",
        "Softplus",
        "Softsign",
        "Tanhshrink",
        "Threshold",
        "ZeroPad1d",
        "ZeroPad2d",
        "ZeroPad3d",
        "ConstantPad1d",
        "ConstantPad2d",
        "ConstantPad3d",
        "ReflectionPad1d",
        "ReflectionPad2d",
        "ReflectionPad3d",
        "ReplicationPad1d",
        "ReplicationPad2d",
        "ReplicationPad3d",
        "LogSigmoid",
        "ChannelShuffle",
        "Fold",
        "Unfold",
        "CosineSimilarity",
        "PairwiseDistance",
        "GLU",
        "Hardshrink",
        "Softshrink",
        "RReLU",
        "MaxUnpool1d",
        "MaxUnpool2d",
        "MaxUnpool3d",
        "LPPool1d",
        "LPPool2d",
        "LocalResponseNorm",
        "CrossMapLRN2d",
        "Parameter",
        "ParameterList",
        "ParameterDict",
        "Module",
        "DataParallel",
    }
)
CONV_LAYERS = frozenset(
    {
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "LazyConv1d",
        "LazyConv2d",
        "LazyConv3d",
    }
)
# Layers whose parameters make a fresh instance inside forward()/the loop a bug (weights never trained).
WEIGHTED_LAYERS_HINT = "Linear, Conv*, Embedding, LSTM, BatchNorm*, LayerNorm, ..."

MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
DATASET_BASES = frozenset(
    {"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset", "torch.utils.data.IterableDataset"}
)
DATA_PARALLEL = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel.DataParallel"}
)
DDP = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.DDP",
        "torch.nn.parallel.distributed.DistributedDataParallel",
    }
)
# Wrappers that hand out a loader's batches unchanged (progress bars, itertools); any other wrapper of a
# loader may move them (timm's PrefetchLoader, a CUDA prefetcher): its batches are not judged.
LOADER_PASSTHROUGH = frozenset({"tqdm", "trange", "track", "islice", "cycle", "chain", "alive_it", "progress"})
# Libraries that place the model and the batches themselves: placement rules stay silent there.
PLACING_FRAMEWORKS = frozenset(
    {
        "lightning",
        "pytorch_lightning",
        "accelerate",
        "deepspeed",
        "fastai",
        "ignite",
        "composer",
        "keras",
        "trl",
        "colossalai",
    }
)
PLACING_NAMES = frozenset({"transformers.Trainer", "transformers.Seq2SeqTrainer"})
# torch.cuda.* calls that do not initialise CUDA (they are queued until it is).
LAZY_CUDA_CALLS = frozenset({"manual_seed", "manual_seed_all", "seed", "seed_all", "amp", "nvtx"})
DTYPES = frozenset(
    {
        "float",
        "float16",
        "float32",
        "float64",
        "half",
        "double",
        "bfloat16",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "long",
        "short",
        "uint8",
        "bool",
        "complex64",
        "complex128",
        "cfloat",
        "cdouble",
        "float8_e4m3fn",
        "float8_e5m2",
    }
)
REDUCED_PRECISION = frozenset({"torch.float16", "torch.half", "torch.bfloat16"})

DEVICE_NAME = re.compile(
    r"^(device|dev|devices|.*_device|device_.*|.*_dev|rank|local_rank|gpu|gpu_id|gpus|"
    r"cuda_device|gpu_device|target_device|map_location)$",
    re.IGNORECASE,
)
LOADER_NAME = re.compile(r"(loader|^dl$|_dl$|^dl_)", re.IGNORECASE)
OPTIMIZER_NAME = re.compile(r"(optim|^opt$|^opt_|_opt$)", re.IGNORECASE)
LOSS_NAME = re.compile(r"(loss|criterion)", re.IGNORECASE)
ANNOUNCE_FUNCS = frozenset(
    {
        "print",
        "info",
        "warning",
        "warn",
        "debug",
        "error",
        "critical",
        "log",
        "write",
        "echo",
        "exception",
        "set_description",
        "rprint",
    }
)


class Symbols:
    """Local names bound by imports, resolved to qualified names (``nn`` → ``torch.nn``)."""

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.aliases[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def qualname(self, expr: ast.expr) -> str | None:
        """``torch.nn.Linear`` for ``nn.Linear`` (after ``from torch import nn``); None if not imported."""
        if isinstance(expr, ast.Name):
            return self.aliases.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.qualname(expr.value)
            return f"{base}.{expr.attr}" if base else None
        return None

    def imports_root(self, roots: frozenset[str]) -> str | None:
        for q in self.aliases.values():
            root = q.split(".")[0]
            if root in roots:
                return root
        return None

    @property
    def uses_torch(self) -> bool:
        return any(q.split(".")[0] == "torch" for q in self.aliases.values())


def torch_attr(q: str | None, prefix: str) -> str | None:
    """The part after ``prefix.`` when ``q`` is a single name under it (``torch.zeros`` → ``zeros``)."""
    if q and q.startswith(prefix + "."):
        rest = q[len(prefix) + 1 :]
        return rest if "." not in rest else None
    return None


def is_weighted_layer(q: str | None) -> bool:
    """``torch.nn.Linear`` and other layers with parameters (not activations, pooling or losses)."""
    name = torch_attr(q, "torch.nn") or ""
    return name[:1].isupper() and not name.endswith("Loss") and name not in PARAMETER_FREE_LAYERS


def is_loss_class(q: str | None) -> bool:
    name = torch_attr(q, "torch.nn") or ""
    return name.endswith("Loss")


def is_model_factory(q: str | None) -> bool:
    """Calls that return a model: torchvision/timm constructors, Hugging Face ``from_pretrained``, hub."""
    if not q:
        return False
    if q.startswith("torchvision.models.") and q.split(".")[-1][:1].islower() and not q.endswith("_weights"):
        return not q.endswith(("get_model_weights", "list_models", "get_weight"))
    if q in ("timm.create_model", "torch.hub.load"):
        return True
    parts = q.split(".")
    return (
        parts[0] == "transformers"
        and parts[-1] == "from_pretrained"
        and len(parts) >= 3
        and ("Model" in parts[-2] or "For" in parts[-2])
    )


def is_conv_model_factory(q: str | None) -> bool:
    return q is not None and (q.startswith("torchvision.models.") or q == "timm.create_model")


def is_dtype(q: str | None) -> bool:
    return torch_attr(q, "torch") in DTYPES


def call_name(node: ast.Call) -> str:
    """The called name as written, last part only: ``print``, ``info`` for ``logger.info``."""
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def dotted(expr: ast.expr) -> str | None:
    """``self.model`` / ``model`` / ``args.device`` for Name/Attribute chains, else None."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr}" if base else None
    return None
