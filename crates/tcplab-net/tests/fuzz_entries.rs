//! Runs the cargo-fuzz entry points on stable: random byte strings, and structured
//! chunks (raw, foreign, mutated and replayed datagrams) that reach the session logic.

use tcplab_core::Rng;
use tcplab_net::fuzzing::{session_input, session_input_for, wire_input, Exercised};

fn bytes(rng: &mut Rng, max: u64) -> Vec<u8> {
    (0..rng.below(max)).map(|_| rng.below(256) as u8).collect()
}

#[test]
fn wire_entry_survives_garbage_and_mutations() {
    let mut rng = Rng::from_seed(5);
    for _ in 0..20_000 {
        wire_input(&bytes(&mut rng, 120));
    }
    // Valid headers with random bodies reach the per-type decoders.
    for _ in 0..20_000 {
        let mut b = bytes(&mut rng, 120);
        if b.len() >= 6 {
            b[0] = 0x54;
            b[1] = 0x4c;
            b[2] = 1;
            b[3] = [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19][rng.below(12) as usize];
            b[5] = rng.below(40) as u8;
        }
        wire_input(&b);
    }
}

#[test]
fn session_entry_survives_hostile_chunks() {
    let mut rng = Rng::from_seed(11);
    let mut done = 0;
    let mut hostile = 0;
    for round in 0..150 {
        let mut input = Vec::new();
        for _ in 0..rng.below(40) {
            // Mostly strangers in the first rounds, every kind later.
            let op = if round < 50 { 1 } else { rng.below(8) as u8 };
            let body = bytes(&mut rng, 60);
            input.push(op);
            input.push(body.len() as u8);
            input.extend(body);
        }
        let ex: Exercised = session_input(&input);
        done += ex.completed as u32;
        hostile += ex.accepted_hostile as u32;
    }
    assert!(
        done >= 50,
        "transfers with only foreign datagrams all complete ({done})"
    );
    assert!(
        hostile > 50,
        "forged and mutated datagrams were tried ({hostile})"
    );
}

#[test]
fn session_entry_survives_hostile_chunks_for_every_transport() {
    let mut rng = Rng::from_seed(13);
    for t in 1..5u8 {
        let (mut done, mut hostile) = (0, 0);
        for round in 0..30 {
            let mut input = Vec::new();
            for _ in 0..rng.below(40) {
                let op = if round < 10 { 1 } else { rng.below(8) as u8 };
                let body = bytes(&mut rng, 60);
                input.push(op);
                input.push(body.len() as u8);
                input.extend(body);
            }
            let ex = session_input_for(t, &input);
            done += ex.completed as u32;
            hostile += ex.accepted_hostile as u32;
        }
        assert!(
            done >= 10,
            "transport {t}: foreign datagrams stop nothing ({done})"
        );
        assert!(
            hostile > 10,
            "transport {t}: forged datagrams were tried ({hostile})"
        );
    }
}
