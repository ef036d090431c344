#!/usr/bin/env python3
"""Unpacks the GPU bench bundle in place with Python's lzma (no xz binary assumed): FILE.xz becomes
FILE, DIR.tar.xz becomes DIR/. Then links into lib/fallback/ each bundled library the system lacks
(per `ldconfig -p`), so the bundle's Vulkan loader and GL libraries never shadow the system's.
Idempotent: a file is unpacked once."""
import lzma
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXECUTABLES = {"bin/node", "native/llama-bench"}


def unpack(path):
    if path.endswith(".tar.xz"):
        target = path[: -len(".tar.xz")]
        if os.path.isdir(target):
            return
        with tarfile.open(path, "r:xz") as archive:
            archive.extractall(target + ".partial")
        os.rename(target + ".partial", target)
    else:
        target = path[: -len(".xz")]
        if os.path.exists(target):
            return
        with lzma.open(path) as source, open(target + ".partial", "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        os.rename(target + ".partial", target)
    if os.path.relpath(target, HERE) in EXECUTABLES:
        os.chmod(target, 0o755)
    print(f"unpacked {os.path.relpath(target, HERE)}")


def system_libraries():
    try:
        listing = subprocess.run(
            ["ldconfig", "-p"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        for folder in ("/sbin", "/usr/sbin"):
            try:
                listing = subprocess.run(
                    [folder + "/ldconfig", "-p"], capture_output=True, text=True, check=True
                ).stdout
                break
            except (OSError, subprocess.CalledProcessError):
                listing = ""
    return {line.split()[0] for line in listing.splitlines() if line.startswith("\t")}


def link_fallbacks():
    bundled = os.path.join(HERE, "lib", "all")
    fallback = os.path.join(HERE, "lib", "fallback")
    if not os.path.isdir(bundled):
        return
    shutil.rmtree(fallback, ignore_errors=True)
    os.makedirs(fallback)
    present = system_libraries()
    used = []
    for name in sorted(os.listdir(bundled)):
        if ".so" in name and name not in present:
            os.symlink(os.path.join(bundled, name), os.path.join(fallback, name))
            used.append(name)
    print("bundled libraries in use: " + (", ".join(used) if used else "none (the system has them)"))


def main():
    for folder, _, files in os.walk(HERE):
        for name in files:
            if name.endswith(".xz"):
                unpack(os.path.join(folder, name))
    link_fallbacks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
