"""The SUN cryptography against NXP AN12196's worked example, and round trips through a
simulated tag with random keys, UIDs and counters."""

from __future__ import annotations

import secrets

import pytest

from bff.tokens import sun
from bff.tokens.tagkeys import ndef_file, url_template
from config.settings import load_settings
from tests.sun_tag import SimulatedTag, read_url

# AN12196 section 4.4 (SUN message with encrypted PICCData, both keys all zero):
# https://choose.url.com/ntag424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086
ZERO_KEY = bytes(16)
AN_PICC = bytes.fromhex("EF963FF7828658A599F3041510671E88")
AN_UID = bytes.fromhex("04DE5F1EACC040")
AN_COUNTER = 0x3D
AN_SV2 = bytes.fromhex("3CC30001008004DE5F1EACC0403D0000")
AN_SESSION_KEY = bytes.fromhex("3FB5F6E3A807A03D5E3570ACE393776F")
AN_FULL_MAC = bytes.fromhex("E194C7EE12D9F7EE8A65C8331B704386")
AN_MAC = bytes.fromhex("94EED9EE65337086")


def test_an12196_picc_data_decrypts_to_its_uid_and_counter() -> None:
    picc = sun.decrypt_picc_data(ZERO_KEY, AN_PICC)
    assert picc.uid == AN_UID
    assert picc.counter == AN_COUNTER == 61


def test_an12196_session_key_and_mac() -> None:
    assert sun.SV2_PREFIX + AN_UID + AN_COUNTER.to_bytes(3, "little") == AN_SV2
    assert sun.session_mac_key(ZERO_KEY, AN_UID, AN_COUNTER) == AN_SESSION_KEY
    assert sun.truncate(AN_FULL_MAC) == AN_MAC
    assert sun.sdm_mac(ZERO_KEY, AN_UID, AN_COUNTER) == AN_MAC
    assert sun.mac_matches(ZERO_KEY, AN_UID, AN_COUNTER, AN_MAC)


def test_an12196_mac_fails_for_another_counter_key_or_bit() -> None:
    assert not sun.mac_matches(ZERO_KEY, AN_UID, AN_COUNTER + 1, AN_MAC)
    assert not sun.mac_matches(bytes([1]) + bytes(15), AN_UID, AN_COUNTER, AN_MAC)
    flipped = bytes([AN_MAC[0] ^ 0x01]) + AN_MAC[1:]
    assert not sun.mac_matches(ZERO_KEY, AN_UID, AN_COUNTER, flipped)


def test_picc_data_under_another_meta_read_key_is_refused() -> None:
    with pytest.raises(sun.SunError):
        sun.decrypt_picc_data(secrets.token_bytes(16), AN_PICC)


def test_a_picc_data_tag_without_both_mirrors_is_refused() -> None:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    plain = bytes([0x87]) + AN_UID + bytes([AN_COUNTER, 0, 0]) + bytes(5)  # UID only
    encryptor = Cipher(algorithms.AES128(ZERO_KEY), modes.CBC(bytes(16))).encryptor()
    with pytest.raises(sun.SunError, match="PICCDataTag"):
        sun.decrypt_picc_data(ZERO_KEY, encryptor.update(plain) + encryptor.finalize())


@pytest.mark.parametrize("seed", range(20))
def test_random_tags_round_trip(seed: int) -> None:
    meta, key, uid = (secrets.token_bytes(16), secrets.token_bytes(16), secrets.token_bytes(7))
    counter = secrets.randbelow(sun.COUNTER_MAX + 1)
    picc = sun.encrypt_picc_data(meta, uid, counter, secrets.token_bytes(5))
    read = sun.decrypt_picc_data(meta, picc)
    assert (read.uid, read.counter) == (uid, counter)
    mac = sun.sdm_mac(key, uid, counter)
    assert len(mac) == 8
    assert sun.mac_matches(key, read.uid, read.counter, mac)
    assert not sun.mac_matches(secrets.token_bytes(16), uid, counter, mac)


@pytest.mark.parametrize("public_url", ["https://records.example", "http://h/" + "x" * 300])
def test_the_template_offsets_point_at_the_placeholders(public_url: str) -> None:
    settings = load_settings(public_url=public_url)
    template = url_template(settings)
    ndef = ndef_file(template.url)
    assert read_url(ndef) == template.url
    assert ndef[template.picc_data_offset : template.picc_data_offset + 32] == b"0" * 32
    assert ndef[template.mac_offset : template.mac_offset + 16] == b"0" * 16
    assert ndef[template.mac_offset - 3 : template.mac_offset] == b"?s="
    tag = SimulatedTag(
        uid=secrets.token_bytes(7),
        meta_read_key=ZERO_KEY,
        file_read_key=ZERO_KEY,
        template=template.url,
        picc_data_offset=template.picc_data_offset,
        mac_offset=template.mac_offset,
    )
    url = tag.tap()
    picc, mac = url.rsplit("/", 1)[1].split("?s=")
    assert sun.decrypt_picc_data(ZERO_KEY, bytes.fromhex(picc)).counter == 1
    assert sun.mac_matches(ZERO_KEY, tag.uid, 1, bytes.fromhex(mac))


def test_an12196_offsets_for_its_own_url() -> None:
    """AN12196's NDEF file puts PICCData at 0x20 and the MAC at 0x43 for its URL written
    with the https:// abbreviation: the same layout rule, shifted by the 8 abbreviated bytes."""
    template = url_template(load_settings(public_url="https://choose.url.com/ntag424?e="))
    # The URL the rule sees here is longer than AN12196's by "/patients/verify/" (17) and
    # by the "https://" the note abbreviates (8).
    assert template.picc_data_offset == 0x20 + 8 + len("/patients/verify/")
    assert template.mac_offset - template.picc_data_offset == 0x43 - 0x20
