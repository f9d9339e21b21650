"""Rewrite a `.vsix` so that building it twice gives the same bytes.

vsce stamps the files it generates (`extension.vsixmanifest`, `[Content_Types].xml`) with the time of
packaging. A `.vsix` is a plain zip, read by VS Code whatever the order or times of its entries, so
this keeps every entry's bytes and Unix mode (the Fast Downward binary must stay executable) and
fixes the rest: the two package files first, then the entries sorted by name, all dated 1980-01-01.

    normalize_vsix.py FILE.vsix...
"""

from __future__ import annotations

import os
import sys
import zipfile

FIXED_DATE = (1980, 1, 1, 0, 0, 0)
FIRST = ("extension.vsixmanifest", "[Content_Types].xml")


def normalize(path: str) -> None:
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info)) for info in source.infolist() if not info.is_dir()]
    entries.sort(key=lambda entry: (entry[0].filename not in FIRST, FIRST.index(entry[0].filename)
                                    if entry[0].filename in FIRST else 0, entry[0].filename))
    partial = f"{path}.partial"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as target:
        for info, data in entries:
            fixed = zipfile.ZipInfo(info.filename, FIXED_DATE)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            mode = (info.external_attr >> 16) & 0o777
            fixed.external_attr = ((0o100000 | (0o755 if mode & 0o100 else 0o644)) << 16)
            fixed.create_system = 3  # Unix, so that the mode above is read
            target.writestr(fixed, data)
    os.replace(partial, path)


def main(paths: list[str]) -> int:
    if not paths:
        print("usage: normalize_vsix.py FILE.vsix...", file=sys.stderr)
        return 2
    for path in paths:
        normalize(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
