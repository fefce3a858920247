"""Sweeps on a Dask cluster: ``tcplab.sweep(..., executor="dask", client=...)``.

Needs ``dask.distributed`` (``pip install 'tcplab[dask]'``). Each run is one task; results
come back as they finish (the progress bar follows the futures), and a task that fails
(for example ``KilledWorker`` when a run takes its worker down) is reported with the run's
parameters while the others go on. The runs table is the same as with local executors:
runs are deterministic and the table is sorted by parameters, seed and replication.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: Seconds to wait for a scheduler named by its address.
CONNECT_TIMEOUT_S = 10.0


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("executor='dask' needs dask.distributed: "
                          "pip install 'tcplab[dask]'") from None
    return distributed


def connect(client: Any, workers: int | None) -> tuple[Any, bool]:
    """A client from `client` (a Client, a scheduler address, or None), and whether we own
    it (and must close it). None means the current client, else a local cluster."""
    distributed = _distributed()
    if isinstance(client, distributed.Client):
        return client, False
    if isinstance(client, str):
        try:
            return distributed.Client(client, timeout=f"{CONNECT_TIMEOUT_S}s"), True
        except OSError as e:
            raise ValueError(f"cannot reach the Dask scheduler at {client}: {e}") from None
    if client is not None:
        raise TypeError(f"client must be a dask.distributed.Client or a scheduler address, "
                        f"not {type(client).__name__}")
    try:
        return distributed.get_client(), False
    except ValueError:
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1)
        return distributed.Client(cluster), True


def run_on_dask(fn: Callable[[Any], tuple], jobs: Sequence[Any], client: Any = None,
                workers: int | None = None) -> Iterator[tuple]:
    """Yields ``fn(job)`` for every job as its task finishes; a task that raised yields
    ``(job, None, "<ExceptionName>: <message>")``."""
    distributed = _distributed()
    client, own = connect(client, workers)
    try:
        futures = client.map(fn, list(jobs), pure=False)
        job_of = {f.key: j for f, j in zip(futures, jobs)}
        for fut in distributed.as_completed(futures):
            job = job_of[fut.key]
            try:
                out = fut.result()
            except Exception as e:  # noqa: BLE001 - reported with the run's parameters
                out = (job, None, f"{type(e).__name__}: {e}")
            fut.release()
            yield out
    finally:
        if own:
            cluster = client.cluster
            client.close()
            if cluster is not None:
                cluster.close()
