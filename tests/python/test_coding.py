"""tcplab.coding: LT and RLNC through the Python bindings."""

import random

import pytest
from tcplab.coding import LtDecoder, LtEncoder, RlncDecoder, RlncEncoder


def lt_roundtrip(data, symbol_size, window=None, loss=0.0, seed=1, **kw):
    rng = random.Random(seed)
    enc = LtEncoder(data, symbol_size, window=window, **kw)
    dec = LtDecoder(len(data), symbol_size, window=window, **kw)
    reported = []
    s = 0
    while not dec.is_complete:
        sym = enc.encode(s % enc.num_generations, s)
        s += 1
        if rng.random() < loss:
            continue
        for i in dec.receive(sym):
            start = i * symbol_size
            assert dec.source(i) == data[start : start + symbol_size]
            reported.append(i)
        assert s < 100 * enc.num_source_symbols + 1000
    assert sorted(reported) == list(range(enc.num_source_symbols))
    return dec


@pytest.mark.parametrize("length,symbol_size", [(1, 1), (37, 1), (1000, 7), (4321, 100)])
def test_lt_single_generation_recovers_exact_bytes(length, symbol_size):
    data = random.Random(length).randbytes(length)
    dec = lt_roundtrip(data, symbol_size, loss=0.3)
    assert dec.data() == data


def test_lt_sliding_generations_and_distributions():
    data = random.Random(5).randbytes(3000)
    for kw in ({}, {"distribution": "ideal"}, {"weights": [0.2, 0.5, 0.3]}):
        dec = lt_roundtrip(data, 50, window=16, loss=0.2, **kw)
        assert dec.data() == data
    enc = LtEncoder(data, 50, window=16)
    assert enc.generation_range(0) == (0, 16)
    assert enc.generation_range(1) == (8, 24)
    nb = enc.neighbours(1, 42)
    assert nb and all(8 <= i < 24 for i in nb)


def test_lt_decoder_reports_progress():
    data = bytes(range(256)) * 8
    enc = LtEncoder(data, 16)
    dec = LtDecoder(len(data), 16)
    fresh = dec.symbols_needed_estimate()
    assert enc.num_source_symbols < fresh < 2 * enc.num_source_symbols
    assert dec.source(0) is None and dec.data() is None
    s = 0
    while not dec.is_complete:
        dec.receive(enc.encode(0, s))
        s += 1
    assert dec.symbols_needed_estimate() == 0
    st = dec.stats()
    assert st["received"] == s and st["buffered"] >= 0


def test_lt_malformed_symbols_raise_value_error():
    data = bytes(500)
    enc = LtEncoder(data, 10, window=10)
    dec = LtDecoder(len(data), 10, window=10)
    good = enc.encode(0, 1)
    with pytest.raises(ValueError, match="truncated"):
        dec.receive(good[:5])
    with pytest.raises(ValueError, match="length"):
        dec.receive(good + b"\x00")
    bad_gen = bytearray(good)
    bad_gen[2:6] = (enc.num_generations).to_bytes(4, "big")
    with pytest.raises(ValueError, match="generation id .* out of range"):
        dec.receive(bytes(bad_gen))
    with pytest.raises(ValueError, match="wrong symbol type"):
        dec.receive(b"R" + good[1:])
    with pytest.raises(ValueError):
        dec.receive(b"")
    other = LtEncoder(data, 11, window=10).encode(0, 1)
    with pytest.raises(ValueError, match="payload length"):
        dec.receive(other)
    assert dec.stats()["received"] == 0
    with pytest.raises(ValueError):
        LtEncoder(data, 0)
    with pytest.raises(ValueError, match="distribution"):
        LtEncoder(data, 10, distribution="zipf")
    with pytest.raises(ValueError, match="delta"):
        LtDecoder(10, 1, delta=2.0)


def test_rlnc_growing_window_seen_and_decoded():
    packets = [bytes([i]) * (i % 5) for i in range(6)]
    enc = RlncEncoder(8, 6)
    dec = RlncDecoder(8, 6)
    for i, p in enumerate(packets):
        assert enc.push(p) == i
    assert enc.window == (0, 6)
    decoded = []
    seed = 0
    while dec.rank < 6:
        r = dec.receive(enc.encode(seed))
        seed += 1
        if r["outcome"] == "innovative":
            assert dec.is_seen(r["newly_seen"])
        decoded += r["newly_decoded"]
    assert sorted(decoded) == list(range(6))
    assert [dec.packet(i) for i in range(6)] == packets
    assert dec.first_unseen() == 6 and dec.first_undecoded() == 6
    # A duplicate adds nothing.
    assert dec.receive(enc.encode(0))["outcome"] == "non_innovative"
    assert dec.drop_decoded_prefix() == 6 and dec.base == 6


def test_rlnc_seen_before_decoded_and_recoding():
    enc = RlncEncoder(4, 3)
    for i in range(3):
        enc.push(bytes([i + 1]) * 4)
    dec = RlncDecoder(4, 3)
    r = dec.receive(enc.encode_with_coefficients([1, 5, 7]))
    assert r["newly_seen"] == 0 and r["newly_decoded"] == []
    assert dec.is_seen(0) and not dec.is_decoded(0)
    assert dec.first_unseen() == 1
    relay_out = dec.recode(9)
    sink = RlncDecoder(4, 3)
    assert sink.receive(relay_out)["rank"] == 1


def test_rlnc_malformed_symbols_raise_value_error():
    enc = RlncEncoder(4, 3)
    for i in range(3):
        enc.push(bytes([i]))
    dec = RlncDecoder(4, 3)
    with pytest.raises(ValueError, match="coefficient vector has 2 entries"):
        enc.encode_with_coefficients([1, 2])
    explicit = bytearray(enc.encode_with_coefficients([1, 2, 3]))
    explicit[12:14] = (4).to_bytes(2, "big")
    with pytest.raises(ValueError, match="coefficient"):
        dec.receive(bytes(explicit))
    seeded = enc.encode(1)
    with pytest.raises(ValueError, match="truncated"):
        dec.receive(seeded[:-1])
    far = bytearray(seeded)
    far[4:8] = (1000).to_bytes(4, "big")
    with pytest.raises(ValueError, match="capacity"):
        dec.receive(bytes(far))
    with pytest.raises(ValueError, match="window is full"):
        enc.push(b"x")
    with pytest.raises(ValueError, match="exceeds the packet size"):
        RlncEncoder(2, 2).push(b"abc")
    assert dec.rank == 0


def test_garbage_never_crashes():
    rng = random.Random(3)
    lt = LtDecoder(100, 10, window=4)
    rl = RlncDecoder(4, 4)
    for _ in range(2000):
        junk = rng.randbytes(rng.randrange(40))
        for dec in (lt, rl):
            try:
                dec.receive(junk)
            except ValueError:
                pass
