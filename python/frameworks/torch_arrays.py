"""Arrays between the worker (NumPy, bf16 through ml_dtypes) and PyTorch, for the torch backend files."""
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
