"""`specialists checkpoints ls | path NAME | verify [NAME] | fetch NAME|--all | import NAME FILE [--link]`.

ls      every manifest entry: status (ok / present / MISMATCH / missing / manual), where, size,
        licence. Never hashes: a file whose hash is not cached yet shows as "present".
path    the local path of a checkpoint (resolved and verified), for scripts. NAME is a manifest
        name: no checkpoints subcommand turns a name into a path outside the store; only
        import's FILE (and `run --checkpoint PATH`) name files elsewhere.
verify  re-hash (ignoring the hash cache) and compare with the manifest / lock; exit 1 on any
        mismatch or, for a named checkpoint, when it is missing.
fetch   download (needs internet); --all fetches every downloadable entry.
import  check a file or folder the user has and copy (or --link) it into SPECIALISTS_HOME.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("checkpoints", help="list, locate, verify, fetch and import model weights")
    sub = parser.add_subparsers(dest="checkpoints_command", required=True, metavar="{ls,path,verify,fetch,import}")
    ls = sub.add_parser("ls", help="every known checkpoint with its status, size and licence")
    ls.add_argument("--json", action="store_true")
    path = sub.add_parser("path", help="print the local path of a checkpoint")
    path.add_argument("name", help="a checkpoint name (`specialists checkpoints ls`)")
    verify = sub.add_parser("verify", help="re-hash weights and compare with the manifest / lock file")
    verify.add_argument("name", nargs="?", help="one checkpoint (default: every one present)")
    fetch = sub.add_parser("fetch", help="download weights (needs internet)")
    which = fetch.add_mutually_exclusive_group(required=True)
    which.add_argument("name", nargs="?")
    which.add_argument("--all", action="store_true", help="every checkpoint with a public download")
    fetch.add_argument("--repin", action="store_true", help="forget the locally pinned hash first")
    imp = sub.add_parser("import", help="check a weight file or folder you have and put it in place")
    imp.add_argument("name")
    imp.add_argument("file", help="the weight file (or folder, for folder checkpoints)")
    imp.add_argument("--link", action="store_true", help="symlink instead of copying")
    imp.add_argument("--repin", action="store_true", help="replace the locally pinned hash with this file's")


def _size(entry, location) -> int | None:
    from checkpoints.resolve import entry_files

    if location is None:
        return None
    if entry.kind == "file":
        return location.path.stat().st_size
    return sum((location.path / f).stat().st_size for f in entry_files(entry, location))


def _human(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def status_rows() -> list[dict]:
    """One dict per manifest entry: name, specialist, status, location, path, size, licence."""
    from checkpoints.hashing import HashCache
    from checkpoints.lock import LockFile
    from checkpoints.manifest import load_manifest
    from checkpoints.resolve import entry_files, locate

    cache, lock = HashCache(), LockFile()
    rows = []
    for entry in load_manifest().entries:
        location = locate(entry)
        expected = lock.expected(entry).sha256
        if location is None:
            status = "manual" if not entry.downloadable else "missing"
        else:
            if entry.kind == "file":
                sha = cache.cached(location.path)
            else:
                sha = cache.folder_cached(location.path, entry_files(entry, location))
            if sha is None or expected is None:
                status = "present"
            else:
                status = "ok" if sha == expected else "MISMATCH"
        rows.append({"name": entry.name, "specialist": entry.specialist, "status": status,
                     "location": location.label if location else None,
                     "path": str(location.path) if location else None,
                     "size": _size(entry, location), "licence": entry.licence})
    return rows


def _ls(args) -> int:
    rows = status_rows()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    header = ("name", "specialist", "status", "size", "licence", "where")
    table = [header] + [(r["name"], r["specialist"], r["status"], _human(r["size"]), r["licence"][:40],
                         r["path"] or "-") for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    missing = [r["name"] for r in rows if r["status"] in ("missing", "manual")]
    if missing:
        print(f"\n{len(missing)} missing: `specialists checkpoints fetch NAME` (or --all) on a machine with internet; "
              "`specialists checkpoints import NAME FILE` for files you have.")
    return 0


def _verify(args) -> int:
    from checkpoints.hashing import HashCache
    from checkpoints.lock import HashMismatchError, LockFile
    from checkpoints.manifest import load_manifest
    from checkpoints.resolve import hash_location, locate, missing_error

    manifest = load_manifest()
    entries = [manifest.get(args.name)] if args.name else list(manifest.entries)
    cache, lock = HashCache(), LockFile()
    bad = checked = 0
    for entry in entries:
        location = locate(entry)
        if location is None:
            if args.name:
                print(str(missing_error(entry)))
                return 1
            continue
        checked += 1
        sha = hash_location(entry, location, cache, use_cache=False)
        try:
            how = lock.check(entry, sha, str(location.path))
        except HashMismatchError as err:
            print(f"MISMATCH {entry.name}: {err}")
            bad += 1
            continue
        print(f"ok       {entry.name}  {sha}  ({'pinned now' if how == 'pinned' else 'matches ' + how})  {location.path}")
    if not args.name:
        print(f"verified {checked} of the {len(entries)} checkpoints in the manifest ({checked - bad} ok, {bad} mismatched); "
              f"{len(entries) - checked} not installed (`specialists checkpoints ls` lists them)")
    return 1 if bad else 0


def _fetch(args) -> int:
    from checkpoints.fetch import fetch
    from checkpoints.manifest import load_manifest

    manifest = load_manifest()
    names = [e.name for e in manifest.entries if e.downloadable] if args.all else [args.name]
    if args.all:
        manual = [e.name for e in manifest.entries if not e.downloadable]
        if manual:
            print(f"skipped (no public download; see `specialists checkpoints path NAME`): {', '.join(manual)}")
    for name in names:
        resolved = fetch(name, manifest=manifest, repin=args.repin)
        print(f"{name}: {resolved.ref.sha256}  {resolved.path}")
    return 0


def handle(args: argparse.Namespace) -> int:
    command = args.checkpoints_command
    if command == "ls":
        return _ls(args)
    if command == "path":
        from checkpoints import resolve
        from checkpoints.manifest import load_manifest

        manifest = load_manifest()
        entry = manifest.get(args.name)  # a name only: a path would lead outside the store
        print(resolve(entry.name, manifest=manifest).path)
        return 0
    if command == "verify":
        return _verify(args)
    if command == "fetch":
        return _fetch(args)
    if command == "import":
        from checkpoints.install import import_checkpoint

        resolved = import_checkpoint(args.name, Path(args.file), link=args.link, repin=args.repin)
        print(f"{resolved.ref.name}: {resolved.ref.sha256} ({resolved.verified})  {resolved.path}")
        return 0
    raise ValueError(f"unknown checkpoints command {command!r}")
