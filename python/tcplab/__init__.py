"""tcplab: a laboratory for TCP-style transport protocols.

Quick use::

    import tcplab
    sc = tcplab.Scenario.from_toml("examples/newreno-lossy.toml")
    res = tcplab.simulate(sc, seed=1)
    res.flows            # one row per flow (pandas DataFrame)
    res.series("cwnd")   # a time series as a DataFrame
"""

from tcplab._tcplab import InvariantError, ScenarioError, SimulationPanic, __version__
from tcplab.result import Result
from tcplab.scenario import Scenario, simulate
from tcplab.sweep import SweepResult, sweep

__all__ = [
    "InvariantError",
    "Result",
    "Scenario",
    "ScenarioError",
    "SimulationPanic",
    "SweepResult",
    "__version__",
    "simulate",
    "sweep",
]
