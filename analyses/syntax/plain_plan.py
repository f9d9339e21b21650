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
        if line is None:
            return None
        # the groups' (start, end) in one attribute read: (time, open, words, duration, close, comment)
        whole, time_at, open_at, words_at, duration_at, close_at, comment_at = line.regs
        if whole[1] == pos:
            return None
        pos = whole[1]
        if comment_at[0] >= 0:
            found = COST_COMMENT.match(text, comment_at[0], comment_at[1])
            if found is not None:
                cost = number_at(found.group(1), found.start(1), found.end(1))
        if words_at[0] < 0:
            continue
        names = names_at(text[words_at[0]:words_at[1]], words_at[0])
        close = text.index(")", words_at[1]) + 1
        time = number_at(text[time_at[0]:time_at[1]], *time_at) if time_at[0] >= 0 else None
        if duration_at[0] >= 0:
            duration = number_at(text[duration_at[0]:duration_at[1]], *duration_at)
            end = close_at[1]
        else:
            duration = None
            end = close
        steps.append(PlanStep(names[0], tuple(names[1:]), time, duration, span_at(open_at[0], close)))
    if not steps:
        return None
    return Plan(tuple(steps), cost, span_at(0, end))
