//! Datagram authentication with a pre-shared key.
//!
//! With a key, every datagram ends in a 16-byte tag and sets [`super::FLAG_MAC`] in its
//! common header. The tag is HMAC-SHA-256 (RFC 2104, FIPS 180-4) keyed with the
//! pre-shared key, over the 8-byte big-endian session nonce followed by the datagram up
//! to the tag, truncated to its leftmost 16 bytes (RFC 2104 section 5; the length
//! IPsec's HMAC-SHA-256-128, RFC 4868, uses). The nonce is zero for a HELLO and for the
//! receiver's answer to one (HELLO_ACK, or a RESET refusing it); every other datagram
//! uses the nonce the receiver drew at random and sent in its HELLO_ACK, so datagrams
//! recorded in one session fail in every other. A datagram whose tag does not verify is
//! dropped before anything else of it is read.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;
use std::path::Path;

/// Bytes of the truncated tag.
pub const TAG_LEN: usize = 16;
/// A key shorter than this is refused (RFC 2104 section 3: less than the hash's output
/// length weakens the MAC; 16 bytes is the tag's own strength).
pub const MIN_KEY_LEN: usize = 16;

/// A pre-shared key, kept as the HMAC state after the key's first block (cloned per
/// datagram, so no datagram re-hashes the key or allocates).
#[derive(Clone)]
pub struct Key {
    mac: Hmac<Sha256>,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A key of these bytes (at least [`MIN_KEY_LEN`]).
    pub fn new(bytes: &[u8]) -> Result<Key, String> {
        if bytes.len() < MIN_KEY_LEN {
            return Err(format!(
                "a key needs at least {MIN_KEY_LEN} bytes, this one has {} (e.g. \
                 `head -c 32 /dev/urandom > key`)",
                bytes.len()
            ));
        }
        let mac = Hmac::<Sha256>::new_from_slice(bytes).map_err(|e| e.to_string())?;
        Ok(Key { mac })
    }

    /// The key in `path`: the file's bytes, without one trailing newline (so a key
    /// written by `echo` or an editor is the same key as one written by `printf`).
    pub fn from_file(path: &Path) -> Result<Key, String> {
        let mut b = std::fs::read(path).map_err(|e| format!("cannot read the key: {e}"))?;
        if b.last() == Some(&b'\n') {
            b.pop();
            if b.last() == Some(&b'\r') {
                b.pop();
            }
        }
        Key::new(&b)
    }

    fn tag(&self, nonce: u64, datagram: &[u8]) -> Hmac<Sha256> {
        let mut m = self.mac.clone();
        m.update(&nonce.to_be_bytes());
        m.update(datagram);
        m
    }

    /// Seals the datagram `buf[..n]`: sets FLAG_MAC and appends the tag. The new length,
    /// or `None` when `buf` has no room for the tag.
    pub fn seal(&self, nonce: u64, buf: &mut [u8], n: usize) -> Option<usize> {
        if n < super::COMMON_HEADER || buf.len() < n + TAG_LEN {
            return None;
        }
        buf[4] |= super::FLAG_MAC;
        let t = self.tag(nonce, &buf[..n]).finalize().into_bytes();
        buf[n..n + TAG_LEN].copy_from_slice(&t[..TAG_LEN]);
        Some(n + TAG_LEN)
    }

    /// The datagram without its tag, if it carries FLAG_MAC and a tag that verifies
    /// (compared in constant time).
    pub fn open<'a>(&self, nonce: u64, bytes: &'a [u8]) -> Option<&'a [u8]> {
        if bytes.len() < super::COMMON_HEADER + TAG_LEN || bytes[4] & super::FLAG_MAC == 0 {
            return None;
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        self.tag(nonce, body)
            .verify_truncated_left(tag)
            .ok()
            .map(|()| body)
    }
}

/// The nonce a datagram of type byte `ty` is sealed with in a session whose nonce is
/// `session` (see the module docs).
pub fn nonce_for(ty: u8, session: u64) -> u64 {
    use super::MessageType;
    match MessageType::from_u8(ty) {
        Some(MessageType::Hello) | Some(MessageType::HelloAck) => 0,
        _ => session,
    }
}

/// True when `bytes` claims to be sealed (FLAG_MAC set in a full common header).
pub fn is_sealed(bytes: &[u8]) -> bool {
    bytes.len() >= super::COMMON_HEADER && bytes[4] & super::FLAG_MAC != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_datagrams_open_only_with_the_key_and_nonce() {
        let k = Key::new(b"0123456789abcdef").unwrap();
        let mut buf = [0u8; 64];
        buf[..2].copy_from_slice(&super::super::MAGIC.to_be_bytes());
        buf[3] = 5;
        let n = k.seal(7, &mut buf, 24).unwrap();
        assert_eq!(n, 24 + TAG_LEN);
        assert_eq!(k.open(7, &buf[..n]).map(<[u8]>::len), Some(24));
        assert!(k.open(8, &buf[..n]).is_none(), "another session's nonce");
        let other = Key::new(b"0123456789abcdeF").unwrap();
        assert!(other.open(7, &buf[..n]).is_none(), "another key");
        for i in 0..n {
            let mut b = buf;
            b[i] ^= 1;
            assert!(k.open(7, &b[..n]).is_none(), "byte {i} flipped");
        }
        assert!(Key::new(b"short").is_err());
    }
}
