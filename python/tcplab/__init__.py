"""tcplab: a laboratory for TCP-style transport protocols.

Quick use::

    import tcplab
    sc = tcplab.Scenario.from_toml("examples/newreno-lossy.toml")
    res = tcplab.simulate(sc, seed=1)
    res.flows            # one row per flow (pandas DataFrame)
    res.series("cwnd")   # a time series as a DataFrame
"""

# First: in the command-line program, Ctrl-C during the imports below exits with 130.
from tcplab import _startup  # noqa: F401, I001
from tcplab._tcplab import InvariantError, ScenarioError, SimulationPanic, __version__
from tcplab.catalog import congestion_controls, scenario_keys, studies, transports
from tcplab.result import Result
from tcplab.scenario import Scenario, simulate

__all__ = [
    "InvariantError",
    "Result",
    "Scenario",
    "ScenarioError",
    "SimulationPanic",
    "SweepResult",
    "__version__",
    "congestion_controls",
    "scenario_keys",
    "simulate",
    "studies",
    "sweep",
    "transports",
]


def __getattr__(name):
    # Sweeps pull in pandas and process pools; load them on first use so that
    # `import tcplab` (and each benchmark child process) stays light.
    if name in ("sweep", "SweepResult"):
        import importlib

        return getattr(importlib.import_module("tcplab.sweeps"), name)
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
