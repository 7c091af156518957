"""One rank of the torch.gloo_* backends' world (torch_distributed_backends.py): started by the
backend as `python gloo_worker.py RANK WORLD_SIZE INIT_FILE`, it joins the gloo process group and
serves requests from stdin until end of file. A request: three int64 (D, k, dtype: 0 f64, 1 f32,
2 f16, 3 bf16), then k * D float64, this rank's share of each element's terms (term-major). The rank sums
its share in order in the dtype (its own accumulation; -0 when k = 0), all_reduce(SUM) sums the
ranks' partial gradients, and rank 0 answers with D float64 on stdout."""
import sys

import numpy as np
import torch
import torch.distributed as dist

DTYPES = {0: torch.float64, 1: torch.float32, 2: torch.float16, 3: torch.bfloat16}


def read_exactly(stream, size):
    data = stream.read(size)
    return data if data is not None and len(data) == size else None


def main():
    rank, world_size, init_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world_size)
    torch.set_num_threads(1)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = read_exactly(stdin, 24)
        if header is None:
            break
        elements, k, code = (int(v) for v in np.frombuffer(header, dtype=np.int64))
        share = np.frombuffer(read_exactly(stdin, 8 * k * elements) or b"", dtype=np.float64).reshape(k, elements)
        dtype = DTYPES[code]
        if k == 0:
            local = torch.full((elements,), -0.0, dtype=dtype)
        else:
            local = torch.from_numpy(share[0].copy()).to(dtype)  # the terms are values of dtype: exact
            for i in range(1, k):
                local = local + torch.from_numpy(share[i].copy()).to(dtype)
        dist.all_reduce(local, op=dist.ReduceOp.SUM)
        if rank == 0:
            stdout.write(local.to(torch.float64).numpy().tobytes())
            stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
