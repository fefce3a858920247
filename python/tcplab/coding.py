"""Erasure codes for coded transports: LT (TCP-Forward) and RLNC (TCP/NC).

The classes are implemented in Rust (crate ``tcplab-coding``); symbols are
``bytes`` in their wire format, and malformed input raises ``ValueError``.

LT codes (rateless; Ideal/Robust Soliton degrees; online peeling decoder)::

    from tcplab.coding import LtEncoder, LtDecoder
    enc = LtEncoder(data, symbol_size=1460)          # one generation
    dec = LtDecoder(len(data), symbol_size=1460)     # same parameters
    seed = 0
    while not dec.is_complete:
        recovered = dec.receive(enc.encode(0, seed))  # indices released now
        seed += 1
    assert dec.data() == data

``window=N`` splits the object into TCP-Forward's overlapping generations
of N symbols sliding by ``stride`` (default N // 2); symbols name their
generation, neighbours are absolute source indices. ``distribution`` is
``"robust"`` (parameters ``c``, ``delta``) or ``"ideal"``, or pass
``weights`` (relative probability of degree 1, 2, ...).

RLNC over GF(2^8) (sliding coding window; Gauss-Jordan decoder reporting the
packets *seen* in the TCP/NC sense)::

    from tcplab.coding import RlncEncoder, RlncDecoder
    enc, dec = RlncEncoder(1460, 32), RlncDecoder(1460, 64)
    for p in packets:
        enc.push(p)
    r = dec.receive(enc.encode(seed=1))
    r["rank"], r["newly_seen"], r["newly_decoded"]
    dec.first_unseen()          # what a TCP/NC receiver acknowledges
"""

from tcplab._tcplab import LtDecoder, LtEncoder, RlncDecoder, RlncEncoder

__all__ = ["LtDecoder", "LtEncoder", "RlncDecoder", "RlncEncoder"]

# Per-method documentation lives on the extension classes themselves
# (``help(LtDecoder.receive)``); this module only gives them a stable home.
