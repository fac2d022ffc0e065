#!/usr/bin/python3
"""install:deb (docs/guide-library.md): `cpack -G DEB` of the build tree makes
rdpdyn_<version>_<arch>.deb whose control fields name the Debian packages of every shared library
the command and the Python module load, and which, unpacked, holds the command, the Python module,
the headers and the CMake package; the unpacked command runs (`--version`) with nothing of the
build tree around it.

Usage: test_deb.py BUILD_DIR VERSION python|no-python (whether the build made the Python module)
"""
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "cli"))
from checks import check, finish  # noqa: E402

build, version = pathlib.Path(sys.argv[1]), sys.argv[2]
python = sys.argv[3] == "python"
def run(*args, **kw):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if r.returncode != 0:  # show why (e.g. a tool cpack needs is missing)
        sys.exit(f"{' '.join(str(a) for a in args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def owning_package(library):
    """The Debian package that ships a shared library (dpkg -S), without the architecture qualifier."""
    out = subprocess.run(["dpkg", "-S", library], capture_output=True, text=True).stdout
    return out.split(":")[0].strip() if out else None


with tempfile.TemporaryDirectory(prefix="rdpdyn-deb-") as tmp:
    tmp = pathlib.Path(tmp)
    run("cpack", "-G", "DEB", "-B", tmp, "--config", build / "CPackConfig.cmake")
    arch = run("dpkg", "--print-architecture").strip()
    deb = tmp / f"rdpdyn_{version}_{arch}.deb"
    check(f"{deb.name} made ({sorted(p.name for p in tmp.iterdir())})", deb.is_file())
    fields = {f: run("dpkg-deb", "-f", deb, f).strip() for f in ("Package", "Version", "Architecture", "Maintainer",
                                                                  "Description", "Depends")}
    print("\n".join(f"{k}: {v}" for k, v in fields.items()))
    check("package, version, architecture", fields["Package"] == "rdpdyn" and fields["Version"] == version and fields["Architecture"] == arch)
    check("maintainer and description (one text, not a CMake list)", fields["Maintainer"] != "" and fields["Description"] != "" and ";" not in fields["Description"])
    depends = {d.strip().split(" ")[0] for clause in fields["Depends"].split(",") for d in clause.split("|")}
    # Every shared library the built command and module load comes from a declared package.
    loaded = set()
    for binary in [build / "rdpdyn", *sorted((build / "python" / "rdpdyn").glob("_rdpdyn*.so"))]:
        for line in run("ldd", binary).splitlines():
            if "=>" in line and "/" in line.split("=>")[1]:
                loaded.add(line.split("=>")[1].split()[0])
    direct = set()
    for binary in [build / "rdpdyn", *sorted((build / "python" / "rdpdyn").glob("_rdpdyn*.so"))]:
        needed = [l.split("[")[1].rstrip("]") for l in run("readelf", "-d", binary).splitlines() if "(NEEDED)" in l]
        direct.update(p for p in loaded if pathlib.Path(p).name in needed)
    for library in sorted(direct):
        # The file itself, not a symbolic link to it (a -dev package may own the link).
        package = owning_package(str(pathlib.Path(library).resolve())) or owning_package(library)
        print(f"{library} -> {package}")
        check(f"{library} ({package}) is in Depends", package in depends)
    if python:
        check("Depends has python3 and python3-numpy (the module)", {"python3", "python3-numpy"} <= depends)

    contents = run("dpkg-deb", "-c", deb)
    for path in ["./usr/bin/rdpdyn", "./usr/include/rdpdyn/library/rdpdyn.hpp", "./usr/lib/cmake/rdpdyn/rdpdynConfig.cmake",
                 "./usr/lib/librdpdyn_math.a", *(["./usr/lib/python3/dist-packages/rdpdyn/_rdpdyn"] if python else [])]:
        check(f"the package holds {path}", path in contents)
    root = tmp / "root"
    run("dpkg-deb", "-x", deb, root)
    env = {"PATH": "/usr/bin:/bin"}
    out = run(root / "usr" / "bin" / "rdpdyn", "--version", env=env)
    print(out)
    check(f"the unpacked rdpdyn --version says {version}", version in out)
    if python:
        # Debian Python policy: packages of the system prefix go to /usr/lib/python3/dist-packages,
        # which Debian's python3 searches; the unpacked package imports from there and says its version.
        package = root / "usr" / "lib" / "python3" / "dist-packages"
        check("the Python package under /usr/lib/python3/dist-packages", (package / "rdpdyn" / "__init__.py").is_file())
        out = run("/usr/bin/python3", "-c", "import rdpdyn; print(rdpdyn.__version__, rdpdyn.__file__)",
                  env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package)}, cwd=tmp)
        print(out)
        check(f"the unpacked module imports and says {version}", version in out and str(package) in out)
        # `rdpdyn plot` finds the package beside the unpacked command (apps/plot_command.cpp).
        config = tmp / "run.toml"
        config.write_text('[orders]\nvalues = [2, 8]\n[algorithm]\nkind = "noisy-gd"\nsteps = 20\neta = 0.1\n'
                          'sigma = 0.5\nn = 100\nsensitivity = 1.0\n[lsi]\nkind = "constant"\nc = 1.0\n')
        command = root / "usr" / "bin" / "rdpdyn"
        run(command, "solve", config, "-o", tmp / "run.h5", env=env)
        run(command, "plot", tmp / "run.h5", "-o", tmp / "run.png", env=env)
        check("the unpacked rdpdyn plot draws from the unpacked package", (tmp / "run.png").stat().st_size > 1000)

finish()
