"""PyTorch's accumulators under torch.compile (Inductor's C++ code for the CPU) as accucheck
backends: compiled and eager are different accumulators (docs/frameworks.md, "torch.compile").

Every function is compiled once with dynamic=True: n and D are symbols, so one kernel serves
every shape except the sizes Dynamo specializes (a dimension of 1 compiles a second kernel, the
reduction over one column, with its own vector loop). The compiled code goes to
ACCUCHECK_TORCH_COMPILE_CACHE (default: torch-compile-cache in the system's temp folder, by user),
so a second campaign reuses it.

    ACCUCHECK_PYTHON=.envs/torch/bin/python accucheck check --python python/frameworks/torch_compile_backends.py --minutes 1
"""
import getpass
import os
import tempfile

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.environ.get(
    "ACCUCHECK_TORCH_COMPILE_CACHE", os.path.join(tempfile.gettempdir(), f"torch-compile-cache-{getpass.getuser()}")))

import torch  # noqa: E402

import accucheck  # noqa: E402
from derivation import derived_for, in_f32  # noqa: E402
from torch_arrays import SUM_LAYOUTS, for_each_sum, stacked, to_numpy, to_torch  # noqa: E402

DERIVED = derived_for("torch", "2.15.0", torch.__version__)


# Inductor's CPU reduction (torch/_inductor/codegen/cpp.py, as printed by TORCH_LOGS=output_code):
# an (n, D) sum over dim 0 with D > 1 vectorizes across the outputs, each output a left-to-right
# chain from 0 over the n rows (`tmp_acc0_vec = tmp_acc0_vec + tmp0`): recursive, no cascade. With
# D = 1 the one output is summed in 16 f32 lanes (32 for bf16/f16) and the lanes reduced by a
# tree (vec_reduce_all): within recursive too. f16 and bf16 are converted to f32, summed there,
# and rounded once at the store. With more threads a long reduction may be split across them (and
# above 8192 iterations per thread CascadeSumHelper sums in blocks): another order of at most n - 1
# roundings per leaf, still within recursive. Two of eager's layouts (torch_arrays.SUM_LAYOUTS).
LAYOUTS = {name: SUM_LAYOUTS[name] for name in ("contiguous", "column_major")}


def _compiled_sum(fmt, layout, threads):
    compiled = torch.compile(LAYOUTS[layout], dynamic=True)
    bound = in_f32(fmt)

    @accucheck.backend(name=f"torch.compile_sum_{layout}_{fmt}_t{threads}", storage=fmt, accumulation="f32",
                       bound=bound, summary=f"torch.compile(x.sum(dim=0), dynamic=True), {layout}, {threads} "
                                            f"thread(s){DERIVED}")
    def run(addends, buffer):
        torch.set_num_threads(threads)
        return to_numpy(compiled(stacked(addends, buffer)))


for_each_sum(_compiled_sum, LAYOUTS)


def _index_add(table, rows, values):
    return table.index_add(0, rows, values)


_compiled_index_add = torch.compile(_index_add, dynamic=True)


# index_add under Inductor: lowered to a scatter with atomic_add in index order (one thread for
# these sizes), each step rounded to the tensor's dtype: recursive in the storage format, as eager.
def _compiled_index_add_backend(fmt):
    @accucheck.backend(name=f"torch.compile_index_add_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"torch.compile(table.index_add(0, rows, values), dynamic=True){DERIVED}")
    def run(table, step_offsets, rows, values):
        torch.set_num_threads(1)
        return to_numpy(_compiled_index_add(to_torch(table), torch.from_numpy(rows), to_torch(values)))


for fmt in ("f32", "f16", "bf16"):
    _compiled_index_add_backend(fmt)
