"""Research tools: what a rules change changes (``impact``) and what a version
guarantees (``verify``).  One module per job:

* ``views``: judging snapshots for research, comparing two rulings fact by fact;
* ``reports``: kinds of difference, causes, witnesses, text output;
* ``gen``: the snapshot generator (encodings/generator.lp) and its enumeration;
* ``impact``: impact over a corpus, and by enumeration (``--enumerate``);
* ``verify``: verify by enumeration, the reference for the search;
* ``search``: verify and exhaustive impact as one clingo search each;
* ``changes``: the expressible CR changes each window must show;
* ``commands``: the ``impact`` and ``verify`` commands.
"""

from .commands import cmd_impact, cmd_verify
from .gen import Bounds, generate, generator_text, model_to_doc
from .impact import impact_corpus, impact_exhaustive
from .reports import ImpactReport, KindReport, impact_text, verify_text
from .verify import VerifyReport, verify
from .views import Kind, Sides, View, compare, judge_one, judge_pairs, research_engine

__all__ = ["Bounds", "ImpactReport", "Kind", "KindReport", "Sides", "VerifyReport", "View",
           "cmd_impact", "cmd_verify", "compare", "generate", "generator_text",
           "impact_corpus", "impact_exhaustive", "impact_text", "judge_one", "judge_pairs",
           "model_to_doc", "research_engine", "verify", "verify_text"]
