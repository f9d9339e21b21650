"""Plans whose every line is one plain step, read with one regular-expression match a line.

Nearly every plan a planner or a model writes is a list of lines ``(name arg ...)``, timed
``t: (name arg ...) [d]`` in a temporal plan, with blank lines and ``;`` comments around them. Lexing such
a plan into tokens and grouping them by line (``parse_plan``) costs about ten microseconds a step, most of
the time a batch of 1,000 plans spends reading them. This reader recognises the whole text at once and
builds the very steps, names, numbers and spans the tokenizer would; anything else in the text (a
nested or unclosed parenthesis, two steps on a line, a name starting with a digit, an unusual blank, an
empty plan) makes it answer None, and the full reader, with its diagnostics, takes the text instead.
"""

from __future__ import annotations

import re

from plansight.analyses.model.pddl import Number, Plan, PlanStep
from plansight.analyses.syntax.lexer import COST_COMMENT, names_at, number_at, span_at
from plansight.analyses.syntax.lexical import COMMENT, STRICT_NAME

# A number as the plan tokenizer reads one, in ASCII digits; a name starts with a letter, so the tokenizer
# could not have read any part of it as a number.
_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_LINE = re.compile(
    r"[ \t]*(?:(?:(?P<time>" + _NUMBER + r")[ \t]*:[ \t]*)?(?P<open>\()[ \t]*"
    r"(?P<words>" + STRICT_NAME + r"(?:[ \t]+" + STRICT_NAME + r")*)[ \t]*\)"
    r"(?:[ \t]*\[[ \t]*(?P<duration>" + _NUMBER + r")[ \t]*(?P<close>\]))?)?"
    r"[ \t]*(?P<comment>" + COMMENT + r")?(?:\r\n|\r|\n|\Z)"
)


def read_plain_plan(text: str) -> Plan | None:
    """The plan of ``text`` when every line is blank, a comment or one plain step (see the module's
    docstring), with the ``; cost = N`` comment's number; None otherwise."""
    steps: list[PlanStep] = []
    cost: Number | None = None
    end = 0
    pos = 0
    size = len(text)
    match_line = _LINE.match
    while pos < size:
        line = match_line(text, pos)
        if line is None or line.end() == pos:
            return None
        pos = line.end()
        comment = line.group("comment")
        if comment is not None:
            found = COST_COMMENT.match(comment)
            if found is not None:
                at = line.start("comment")
                cost = number_at(found.group(1), at + found.start(1), at + found.end(1))
        words = line.group("words")
        if words is None:
            continue
        names = names_at(words, line.start("words"))
        close = text.index(")", line.end("words")) + 1
        time = duration = None
        if line.group("time") is not None:
            time = number_at(line.group("time"), line.start("time"), line.end("time"))
        if line.group("duration") is not None:
            duration = number_at(line.group("duration"), line.start("duration"), line.end("duration"))
            end = line.end("close")
        else:
            end = close
        steps.append(PlanStep(names[0], tuple(names[1:]), time, duration, span_at(line.start("open"), close)))
    if not steps:
        return None
    return Plan(tuple(steps), cost, span_at(0, end))
