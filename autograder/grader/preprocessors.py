"""nbgrader preprocessors of the workbook."""

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Float, Integer, Unicode

from grader.feedback import HideHiddenTests, NeutraliseStudentHTML  # noqa: F401  (re-exported)


class StderrToStdout(Preprocessor):
    """Move every stderr stream output of a code cell to stdout.

    nbgrader gives 0 points to a test cell with any stderr output, so a deprecation warning
    from torch would zero a correct answer. The text stays visible in the feedback; only its
    stream changes. Exceptions are "error" outputs and keep failing the cell.
    """

    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream" and output.get("name") == "stderr":
                    output["name"] = "stdout"
        return cell, resources


class SandboxedExecute(Preprocessor):
    """nbgrader's Execute, replaced: student cells in a bubblewrap kernel, tests in the grader.

    See `grader.execute` for the design. Configured like any nbgrader preprocessor, e.g.
    `c.SandboxedExecute.cell_timeout = 60`. `source_root` is the instructor's folder of
    notebooks (the trusted test cells come from there, by grade_id); `report_directory`
    receives one JSON report per notebook (kernel status, each test's verdict).
    """

    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    source_root = Unicode("", help="folder holding <assignment>/<notebook>.ipynb sources").tag(
        config=True
    )
    report_directory = Unicode("", help="where run reports are written").tag(config=True)
    sandbox = Unicode(
        "bwrap",
        help="bwrap (required, the default), auto (bwrap when it "
        "works, else unsandboxed) or none (trusted notebooks only)",
    ).tag(config=True)
    cell_timeout = Float(300.0).tag(config=True)
    notebook_timeout = Float(1800.0).tag(config=True)
    memory_mb = Integer(4096).tag(config=True)
    output_chars = Integer(20000).tag(config=True)
    borrowed_credit = Float(
        0.0,
        help="fraction of a test's points that an answer borrowed "
        "from the package's twin of its exercise, or from the PyTorch "
        "built-in it forbids, gets (grader.borrowed); 0 = none, 1 = only "
        "noted",
    ).tag(config=True)

    def preprocess(self, nb, resources):
        import json
        import os
        from pathlib import Path

        from grader.execute import Template, run_notebook
        from grader.sandbox import Limits

        info = resources.get("nbgrader", {})
        assignment, notebook = info.get("assignment"), info.get("notebook")
        source = Path(self.source_root) / assignment / f"{notebook}.ipynb"
        template = Template.from_path(source)
        limits = Limits(
            memory_mb=self.memory_mb,
            cell_timeout_s=self.cell_timeout,
            notebook_timeout_s=self.notebook_timeout,
            output_chars=self.output_chars,
        )
        files = resources.get("metadata", {}).get("path")
        folder = Path(self.report_directory) / assignment / str(info.get("student"))
        if self.report_directory:  # an earlier run's must not stand in for this one
            (folder / f"{notebook}.json").unlink(missing_ok=True)
        try:
            report = run_notebook(
                nb,
                template,
                Path(files) if files else None,
                limits,
                self.sandbox,
                borrowed_credit=self.borrowed_credit,
            )
        except Exception as err:  # the grader's failure: nbgrader fails this notebook; its
            self._failed(info, folder, f"{type(err).__name__}: {err}")  # status says so
            raise
        self.log.info("%s/%s/%s: %s", info.get("student"), assignment, notebook, report.status)
        if self.report_directory:
            os.makedirs(folder, exist_ok=True)
            (folder / f"{notebook}.json").write_text(json.dumps(report.to_json(), indent=1))
        return nb, resources

    def _failed(self, info: dict, folder, reason: str) -> None:
        """For plain nbgrader (the TA command records it too): a report whose status says
        the grading failed, and no automatic score left from an earlier grading."""
        import json
        import os

        from nbgrader.api import Gradebook, MissingEntry

        from grader.intake import printable
        from grader.status import FAILED

        if self.report_directory:
            os.makedirs(folder, exist_ok=True)
            status = f"{FAILED}: {printable(reason, 300)}"
            (folder / f"{info.get('notebook')}.json").write_text(
                json.dumps({"status": status, "tests": {}, "sandboxed": False}, indent=1)
            )
        if not info.get("db_url"):
            return
        try:
            with Gradebook(info["db_url"]) as gb:
                notebook = gb.find_submission_notebook(
                    info.get("notebook"), info.get("assignment"), info.get("student")
                )
                for grade in notebook.grades:
                    if grade.auto_score is not None:
                        grade.auto_score = 0.0
                gb.db.commit()
        except MissingEntry:
            pass
