"""A save's command stream: the `!VCSK` obfuscation undone, and the nested ESC lists flattened
into single commands the way VASSAL's GameModule.decode reads them."""

from __future__ import annotations

import binascii

from compiler.importing.archive import ArchiveError
from compiler.sequence import ESC, split

OBFUSCATED = b"!VCSK"
MAX_DEPTH = 64


def command_text(data: bytes, where: str) -> str:
    """The command text of a `savedGame` entry, obfuscated (VASSAL's usual form) or plain."""
    if data.startswith(OBFUSCATED):
        try:
            key = int(data[5:7], 16)
            payload = binascii.unhexlify(data[7:].strip())
        except ValueError as err:
            raise ArchiveError(f"{where}: the obfuscated command stream is damaged") from err
        data = bytes(byte ^ key for byte in payload)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ArchiveError(f"{where}: the command stream is not UTF-8 text") from err


def flat_commands(text: str, where: str) -> list[str]:
    """Every single command, in order: a token that splits further is a nested list."""
    out: list[str] = []
    pending: list[tuple[str, int]] = [(text, 0)]
    while pending:
        command, depth = pending.pop()
        parts = split(command, ESC)
        if len(parts) == 1 and parts[0] == command:
            if command:
                out.append(command)
            continue
        if depth >= MAX_DEPTH:
            raise ArchiveError(f"{where}: commands are nested more than {MAX_DEPTH} deep")
        pending.extend((part, depth + 1) for part in reversed(parts))
    return out
