"""Tests of the diagnostic reporters: text, JSON, GitHub annotations and SARIF 2.1.0 (schema-validated)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from contractor.diagnostics import (
    Diagnostic,
    OutputFormat,
    Related,
    Rule,
    Severity,
    exit_code,
    render,
    to_sarif,
)

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text())

CALL = Diagnostic(
    "client.py", 10, 5, Severity.ERROR,
    "Door.open() is not enabled: 'door' may be in state S3 {alarm, close, start}", "typestate-call",
    notes=(Related("helpers.py", 3, 9, "called from here"),),
)
LEAK = Diagnostic("a/b.py", 2, 1, Severity.WARNING, "conn is never closed", "typestate-leak")


def test_text_is_path_line_col_severity_message_code_sorted_by_place():
    out = render([CALL, LEAK], OutputFormat.TEXT)
    assert out.splitlines() == [
        "a/b.py:2:1: warning: conn is never closed [typestate-leak]",
        ("client.py:10:5: error: Door.open() is not enabled: 'door' may be in state S3 "
        "{alarm, close, start} [typestate-call]"),
        "helpers.py:3:9: note: called from here",
    ]


def test_no_diagnostics_render_as_nothing_in_text_and_github():
    assert render([], OutputFormat.TEXT) == ""
    assert render([], OutputFormat.GITHUB) == ""


def test_json_round_trips_the_fields():
    data = json.loads(render([CALL], OutputFormat.JSON))
    (item,) = data["diagnostics"]
    assert item["severity"] == "error" and item["line"] == 10 and item["col"] == 5
    assert item["notes"][0]["path"] == "helpers.py"


def test_github_annotation_escapes_properties_and_message():
    d = Diagnostic("x,y.py", 1, 2, Severity.WARNING, "50% done\nnext", "k:1")
    (line,) = render([d], OutputFormat.GITHUB).splitlines()
    assert line == "::warning file=x%2Cy.py,line=1,col=2,title=k%3A1::50%25 done%0Anext"
    assert render([Diagnostic("f.py", 1, 1, Severity.NOTE, "m", "c")],
                  OutputFormat.GITHUB).startswith("::notice ")


@pytest.mark.parametrize("diagnostics", [[], [CALL], [CALL, LEAK]])
def test_sarif_validates_against_the_official_schema(diagnostics):
    log = json.loads(render(diagnostics, OutputFormat.SARIF,
                            rules=[Rule("typestate-call", "a call not enabled in the object's state")]))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    assert len(results) == len(diagnostics)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]


def test_sarif_result_carries_location_level_and_related_notes():
    (result,) = to_sarif([CALL])["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (10, 5)
    assert result["level"] == "error"
    assert result["relatedLocations"][0]["message"]["text"] == "called from here"


def test_a_schema_violation_is_caught_by_the_validator():
    """The schema test can fail: a result without a message is rejected."""
    log = to_sarif([CALL])
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_exit_code_follows_fail_on():
    assert exit_code([LEAK], None) == 0
    assert exit_code([LEAK], Severity.ERROR) == 0
    assert exit_code([LEAK], Severity.WARNING) == 1
    assert exit_code([CALL], Severity.WARNING) == 1
    assert exit_code([], Severity.NOTE) == 0
