"""Arrays between the worker (NumPy, bf16 through ml_dtypes) and PyTorch, and the layouts torch.sum
reads them in, for the torch backend files (eager and compiled)."""
import ml_dtypes
import numpy as np
import torch

TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def to_torch(a: np.ndarray) -> torch.Tensor:
    """A NumPy array of the storage dtype as a tensor (bf16 through its bit patterns)."""
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def stacked(addends, buffer) -> torch.Tensor:
    """(n, D) contiguous: the initial gradient, then the addends."""
    return to_torch(np.concatenate([buffer[None, :], addends], axis=0))


# The layouts torch.sum(x, dim=0) takes other code paths for (SumKernel.cpp, cascade_sum):
# contiguous (vectorized_outer_sum / scalar_outer_sum), column-major (the reduced dim
# contiguous: vectorized_inner_sum), a slice with a column stride of 2, and a stride-0 expand.
def contiguous(x):
    return x.sum(dim=0)


def column_major(x):
    return x.t().contiguous().t().sum(dim=0)


def sliced(x):
    wide = torch.zeros((x.shape[0], 2 * x.shape[1]), dtype=x.dtype)
    wide[:, ::2] = x
    return wide[:, ::2].sum(dim=0)


def expanded(x):
    # each element's column as an (n, 1) tensor expanded to (n, 2): stride 0 across the outputs
    return torch.stack([x[:, j:j + 1].expand(x.shape[0], 2).sum(dim=0)[0] for j in range(x.shape[1])])


SUM_LAYOUTS = {"contiguous": contiguous, "column_major": column_major, "sliced": sliced, "expanded": expanded}


def for_each_sum(define, layouts=SUM_LAYOUTS):
    """Calls define(fmt, layout, threads) for every 16- and 32-bit format, layout and thread
    count (1 and 2): the dense sums are registered one backend per combination."""
    for fmt in ("f32", "f16", "bf16"):
        for layout in layouts:
            for threads in (1, 2):
                define(fmt, layout, threads)
