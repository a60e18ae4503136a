"""The result of linting (and confirming) one exported model: onnx_shapelint.Report."""

import html

from onnx_shapelint import _core

_SEVERITIES = ("note", "warning", "error")


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def summary_text(findings, models=1):
    """The closing line of the text report: "1 error, 0 warnings in 1 model"."""
    count = {s: sum(1 for f in findings if f["severity"] == s) for s in _SEVERITIES}
    text = "%s, %s" % (_plural(count["error"], "error"), _plural(count["warning"], "warning"))
    if count["note"]:
        text += ", " + _plural(count["note"], "note")
    return text + " in " + _plural(models, "model")


def finding_block(path, finding):
    """A finding the Python layer made (its node may be None), as the text report prints one."""
    head = path
    node = finding.get("node")
    if node:
        head += ": %s/%s" % (node["graph"], node["label"])
    head += ": %s[%s] %s: %s" % (finding["severity"], finding["rule"], finding["name"],
                                 finding["message"])
    lines = [head]
    for note in finding.get("notes") or []:
        lines.append("  = note: " + note["message"])
    if finding.get("fix"):
        lines.append("  = help: " + finding["fix"])
    return "\n".join(lines) + "\n"


def confirmation_line(finding):
    """The line a confirmation adds to its finding's block, or ""."""
    c = finding.get("confirmation")
    if not c:
        return ""
    return "  = %s: %s\n" % (c["verdict"], c["detail"])


class Report:
    """Findings for one model file, with the text report of the command line.

    findings   the findings, as lint() returns them (dicts of the JSON report), those of the
               export call (ST codes) first; an error run on ONNX Runtime has "confirmation"
    path       the model file they are about
    ok         True when no finding is an error
    probes     the sizes the dynamic check ran, with their verdicts
    timings    seconds spent exporting, linting and confirming; runs: sizes confirm ran
    str(r)     the text report; r._repr_html_() the page notebooks show
    """

    def __init__(self, path, findings, blocks, options=None):
        self.path = str(path)
        self._options = dict(options or {})  # lint()'s, for the HTML page
        self.findings = list(findings)
        self._blocks = list(blocks)
        self.exporter = None  # "dynamo" or "torchscript" when onnx_shapelint.torch wrote it
        self.probes = []      # the dynamic check's runs: binding, inputs, verdict, detail
        self.timings = {}     # seconds: export, lint, confirm
        self.runs = 0         # sizes confirm ran, each on ONNX Runtime and the module
        self.recorded_runs = []  # runs export() wrote into the file (onnx_shapelint.runs)

    @classmethod
    def of_file(cls, path, **options):
        """Lints the model at `path` with lint()'s options."""
        return cls(path, *_core.lint_with_text(path, **options), options)

    def add(self, finding, block=None):
        """Adds a finding the Python layer made, before the linter's."""
        index = sum(1 for f in self.findings if f["rule"].startswith("ST"))
        self.findings.insert(index, finding)
        self._blocks.insert(index, block or finding_block(self.path, finding))

    def _index(self, finding):
        return next(i for i, f in enumerate(self.findings) if f is finding)

    def promote(self, finding, counterexample, confirmation):
        """Makes a warning or a note an error: a run found the counterexample the analysis did
        not (a literal no shape contradicts; a size a weight seemed to fix, which the module
        takes)."""
        self._change(finding, "error", confirmation)
        finding["counterexample"] = counterexample

    def demote(self, finding, confirmation):
        """Makes an error a warning: its counterexample ran, and PyTorch refuses those sizes
        too or returns what ONNX Runtime does. It keeps the counterexample, which the verdict
        explains."""
        self._change(finding, "warning", confirmation)

    def refute(self, finding, confirmation):
        """Makes a hypothesis a note: runs tested what it predicts and found the module's own
        design instead (both sides agree where the size it names changes; PyTorch refuses the
        sizes its limit refuses)."""
        self._change(finding, "note", confirmation)

    def _change(self, finding, severity, confirmation):
        i = self._index(finding)
        # What the linter said, kept through every change for as_linted().
        linted = (finding.get("confirmation") or {}).get("linted") or {
            "severity": finding["severity"], "counterexample": finding.get("counterexample")}
        self._blocks[i] = self._blocks[i].replace("%s[" % finding["severity"], "%s[" % severity, 1)
        finding["severity"] = severity
        finding["confirmation"] = dict(confirmation, linted=linted)

    def settle(self, finding, severity, note, fix):
        """Changes the severity of a finding of the Python layer, with the reason."""
        finding["severity"] = severity
        finding["notes"].append({"message": note, "node": None})
        finding["fix"] = fix
        self._blocks[self._index(finding)] = finding_block(self.path, finding)

    def as_linted(self):
        """The linter's findings as lint() returned them for the same file and options before
        export() recorded its runs in the file: without
        the export call's (ST) findings and the verdicts, and with the severity and
        counterexample of each finding a run changed as the linter gave them."""
        out = []
        for finding in self.findings:
            if finding["rule"].startswith("ST"):
                continue
            linted = {k: v for k, v in finding.items() if k != "confirmation"}
            linted.update((finding.get("confirmation") or {}).get("linted") or {})
            out.append(linted)
        return out

    @property
    def errors(self):
        return [f for f in self.findings if f["severity"] == "error"]

    @property
    def ok(self):
        return not self.errors

    def raise_for_errors(self):
        """Raises LintError (message: the text report, .findings: every finding) on an error."""
        if self.ok:
            return self
        error = _core.LintError(str(self))
        error.findings = self.findings
        raise error

    def __str__(self):
        parts = [b + confirmation_line(f) for f, b in zip(self.findings, self._blocks)]
        parts.append(summary_text(self.findings) + "\n")
        return "\n".join(parts).rstrip("\n")

    def _repr_html_(self):
        """The report of --format html (docs/html.md) as one element for the notebook's page,
        with the verdicts of the runs and the findings of the export call in a section of their
        own at the end of its main content. Its style applies only inside it: the notebook's
        own headings, tables and fonts stay as they were."""
        page = _core.lint_html(self.path, fragment=True, **self._options)
        runs = self._runs_html()
        # The page's markup is the only "</main>" in it: text from the model is escaped.
        return page.replace("</main>", runs + "</main>", 1) if runs else page

    def _runs_html(self):
        rows = []
        for f in self.findings:
            c = f.get("confirmation")
            if f["rule"].startswith("ST") or c:
                verdict = c["verdict"] if c else ""
                rows.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % tuple(
                    html.escape(str(v)) for v in (f["rule"], f["severity"], f["message"],
                                                  verdict + (": " + c["detail"] if c else ""))))
        if not rows:
            return ""
        return ("<section id=\"runs\"><h2>Runs</h2><table><thead><tr><th>Rule</th>"
                "<th>Severity</th><th>Finding</th><th>Verdict</th></tr></thead><tbody>%s"
                "</tbody></table></section>\n" % "".join(rows))

    def __repr__(self):
        return "<onnx_shapelint.Report %s: %s>" % (self.path, summary_text(self.findings))
