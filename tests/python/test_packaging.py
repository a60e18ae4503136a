"""What a user of the package or of a clone reads before building: pyproject.toml's metadata
and build requirements, the README's build instructions, docs/pre-commit.md on the hook's build.

What the built wheel holds and loads is tests/hooks/pre_commit_python_test.sh's.
"""

import re
import unittest

from shapelint_testing import SOURCE_DIR

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None


def pyproject():
    if tomllib is None:
        raise unittest.SkipTest("reading pyproject.toml needs Python 3.11 (tomllib)")
    with open(SOURCE_DIR / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def read(path):
    return (SOURCE_DIR / path).read_text(encoding="utf-8")


def code_blocks(text):
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)


class LongDescriptionTest(unittest.TestCase):
    """The description an index or `pip show -v` shows, to someone without a clone."""

    def setUp(self):
        self.path = pyproject()["project"]["readme"]
        self.text = read(self.path)

    def test_needs_no_clone(self):
        # tools/dev and paths of the repository exist only in a clone.
        self.assertNotIn("tools/dev", self.text)
        self.assertNotRegex(self.text, r"(?m)^\s*(build/|tests/)")
        self.assertTrue(self.text.startswith("# onnx-shapelint\n"), self.text[:80])

    def test_links_are_absolute(self):
        # A relative link resolves against the index's page, where the repository's files are not.
        for target in re.findall(r"\]\(([^)]*)\)", self.text):
            self.assertRegex(target, r"^https://", target)

    def test_says_how_to_install_and_where_the_docs_are(self):
        self.assertIn("pip install", self.text)
        self.assertIn("https://github.com/onnx-shapelint/onnx-shapelint/tree/main/docs", self.text)
        self.assertIn("share/doc/onnx-shapelint/", self.text)
        urls = pyproject()["project"]["urls"]
        self.assertIn("Documentation", urls)


class BuildRequirementsTest(unittest.TestCase):

    def test_pybind11_has_a_tested_range(self):
        # An unbounded requirement takes whatever pybind11 is newest at build time.
        requires = pyproject()["build-system"]["requires"]
        pybind11 = [r for r in requires if r.startswith("pybind11")]
        self.assertEqual(len(pybind11), 1, requires)
        self.assertRegex(pybind11[0], r"^pybind11>=[0-9.]+,<[0-9.]+$")

    def test_pip_install_verbose_shows_the_build(self):
        self.assertEqual(pyproject()["tool"]["scikit-build"]["logging"]["level"], "INFO")


class ReadmeTest(unittest.TestCase):

    def test_lists_the_debian_packages_of_a_build(self):
        # Every package CMakeLists.txt stops without (shapelint_require), the tests' Catch2 and
        # the Python module's, in an `apt install` of the README.
        cmake = read("CMakeLists.txt")
        needed = set()
        for packages in re.findall(r'^shapelint_require\(\S+ "([^"]+)"', cmake, re.M):
            needed.update(packages.split())
        self.assertGreaterEqual(len(needed), 6, needed)
        needed.update({"cmake", "g++", "catch2", "pybind11-dev", "python3-dev"})
        readme = read("README.md")
        installed = set()
        for block in code_blocks(readme):
            for command in re.findall(r"apt(?:-get)? install ((?:[^\n]*\\\n)*[^\n]*)", block):
                installed.update(w for w in re.sub(r"#[^\n]*", "", command).split()
                                 if re.match(r"^[a-z0-9][a-z0-9.+-]+$", w))
        self.assertEqual(needed - installed, set())

    def test_keeps_its_two_commands(self):
        readme = read("README.md")
        self.assertIn("tools/dev example", readme)
        self.assertIn("tools/dev test", readme)


class PreCommitDocTest(unittest.TestCase):

    def test_says_the_first_run_builds_for_minutes_and_how_to_watch(self):
        doc = read("docs/pre-commit.md")
        section = doc[doc.index("`onnx-shapelint-pip`"):doc.index("### `repo: local`")]
        self.assertRegex(section, r"first run takes minutes")
        self.assertIn("This may take a few", section)
        self.assertRegex(section, r"pip install -v ")
        self.assertIn("pre-commit install-hooks", section)


if __name__ == "__main__":
    unittest.main()
