"""The input guard (prompt injection) and the output clean-up (the TUM chatbot's), both plain regular expressions.

Input: the question is split into sentences and each is checked against named `RULES` ("ignore previous
instructions", "you are now …", requests for the system prompt, to invent facts or drop citations, for other
students' records; English, Spanish, French, German). A rule matches an *order to the assistant*, not a word:
"Ignore your rules" is cut, "Can I ignore the prerequisite?" and "When are final grades for graduating students
due?" are questions. A question that is all injection is blocked with a message naming the part cut and why,
without retrieval or LLM call; a real question with an injection attached keeps its clean sentences and is
answered. `helpers.lab.guard` measures both ways: false rejections on benign questions and catches
on injection attempts. Output: trailing sign-offs ("Best regards") and redirects away from the documents
("check the university website") are removed. What it leaves out: a learned classifier, and attacks hidden in
the documents themselves (the system prompt tells the model to ignore them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

REJECTION = "I can only answer questions about the program from its documents, and I can't follow that request."
MAX_QUESTION_CHARS = 2000  # longer input is refused with a message: it would crowd the context out of the prompt

# An order starts a clause ("Ignore …", "…, ignore …", "and then ignore …") or is put to the assistant ("you
# ignore …", "I want you to ignore …"). "Can I ignore …" or "if my group ignores …" is a student's question.
ORDER = (
    r"(?:^|[,:;(\[\"'“‘—–]\s*|\b(?:and|then|also|now|just|please|so|kindly|simply|first|pls)\s+"
    r"|\byou(?:\s+\w+){0,2}\s+to\s+|\byou(?:'ll|\s+will|\s+must|\s+should|\s+can|\s+need\s+to)?\s+)"
)
ROLE_NOUNS = r"(?:ai|assistant|model|bot|chatbot|llm)"


@dataclass(frozen=True)
class Rule:
    """One kind of injection: a name, why it is cut (completes "it …"), and the pattern that finds it."""

    name: str
    reason: str
    pattern: str

    def search(self, text: str) -> re.Match[str] | None:
        """The first match in `text` (case-insensitive), or None."""
        return _compiled(self.pattern).search(text)


_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    """The pattern compiled once (case-insensitive)."""
    if pattern not in _CACHE:
        _CACHE[pattern] = re.compile(pattern, re.IGNORECASE)
    return _CACHE[pattern]


def _any(*alternatives: str) -> str:
    """Alternatives joined into one pattern."""
    return "|".join(f"(?:{a})" for a in alternatives)


# fmt: off
RULES: list[Rule] = [
    Rule("override", "asks me to set aside my instructions", _any(
        ORDER + r"(?:ignore|disregard|forget|override|bypass|circumvent)\s+(?:all\s+|any\s+|of\s+)*"
        r"(?:(?:your|the|my|these|those|previous|prior|above|earlier|preceding|original|initial|system|safety|"
        r"everything|what)\b[\s\w-]{0,30}?)?\b(?:instructions?|rules|prompts?|guidelines|directions|constraints|"
        r"guardrails|programming|restrictions|settings|filters|context|above|told)\b",
        r"\b(?:olvida|ignora|omite)\b[^.?!]{0,40}\b(?:instrucciones|reglas|normas)\b",
        r"\b(?:oublie|ignore)[sz]?\b[^.?!]{0,20}\b(?:tes|vos|les|toutes)\s+(?:\w+\s+)?(?:instructions|consignes|règles)",
        r"\b(?:ignoriere|vergiss|missachte)\b[^.?!]{0,40}\b(?:anweisungen|regeln|vorgaben)\b",
    )),
    Rule("role", "asks me to play another role", _any(
        r"\byou\s+are\s+now\b|\byou'?re\s+now\b|\bfrom now on,?\s+(?:you|act|respond|answer|reply|only|always|never)\b",
        ORDER + r"(?:act\s+as|pretend\s+(?:to\s+be|you|that\s+you))\b|\bact as (?:if|though) you\b",
        r"\blet'?s\s+(?:role-?play|play\s+a\s+game|pretend)\b|\brole-?play\s*(?::|as\b|with me\b)",
        r"\byou(?:'re|\s+are)\s+(?:going\s+to|gonna)\s+(?:act|pretend|be)\b|\byou(?:'?re|\s+are)\s+(?-i:[A-Z])\w*Bot\b",
        r"\byou(?:'re|\s+are)\s+no\s+longer\s+(?:a|an|the)\b",
    )),
    Rule("leak", "asks for my hidden instructions, configuration or secrets", _any(
        r"\b(?:your|the)\s+(?:full\s+|complete\s+|entire\s+|exact\s+)?(?:system|initial|original|hidden|secret|"
        r"internal)\s+(?:prompt|instructions?|message|rules)\b|\bsystemprompt\b|\bprompt de(?:l)? sistema\b",
        r"\byour\s+(?:first\s+|initial\s+|original\s+|hidden\s+|secret\s+|exact\s+)?(?:instructions?|prompt|"
        r"configuration|config|programming|guidelines|rules)\b",
        r"\b(?:repeat|print|output|show|reveal|display|dump|write out)\b[^.?!]{0,40}\b(?:words|text|everything|all)"
        r"\s+(?:above|before)\b|\bwhat was written (?:at the (?:very )?beginning|above|before)\b",
        r"\b(?:admin(?:istrator)?|root|system)\s+passwords?\b|\braw text of (?:every|all)\b",
        r"\b(?:dump|reveal|print|leak|show me|give me|output|expose)\b[^.?!]{0,40}\b(?:api keys?|passwords?|"
        r"credentials|secrets)\b",
    )),
    Rule("mode", "tries to switch me into a mode without rules", _any(
        r"\b(?:you(?:'re|\s+are)(?:\s+now)?(?:\s+in)?|enable|enter|activate|switch\s+to|turn\s+on)\s+"
        r"(?:developer|debug|god|jailbreak|sudo|unrestricted|dan)\s+mode\b|\b(?:jailbreak|god)\s*mode\b",
        r"(?-i:\bDAN\b)|\bdo anything now\b|\bbroken free\b|\bunrestricted\s+" + ROLE_NOUNS + r"\b",
        r"\b" + ROLE_NOUNS + r"\s+(?:with|that\s+has)\s+no\s+(?:rules|restrictions|limits|filters)\b",
        r"\b(?:answer|respond|reply)\w*\b[^.?!]{0,40}\bwithout (?:any )?(?:restrictions|filters|limits|rules)\b",
    )),
    Rule("markup", "imitates a system or developer message", _any(
        r"#{2,}\s*(?:new|system|end)\b|\[/?(?:system|inst)\b|<</?sys>>|<\|im_(?:start|end)\|>",
        r"</?(?:context|system|documents?|instructions?)>|\bend of (?:the )?(?:documents|context)\b",
        r"\bsystem override\b",
        r"^\s*(?:system|assistant|developer)\s*(?:notice|message)?\s*(?:from\s+[\w ]{0,20})?:",
        r"\bnew (?:developer |system )?(?:instructions|rules)\s*(?::|are in effect|for you)|\bnew task\s*:",
        r"\bthe assistant (?:must|should|will|shall) (?:now|from now on|always|never)\b",
    )),
    Rule("fabricate", "asks me to make up or forge information", _any(
        ORDER + r"(?:invent|fabricate|forge|fake|make\s+up)\b|\binvente[sz]?\b",
        r"\bmak(?:e|es|ing)\s+(?:the\s+)?(?:numbers?|figures|facts|stuff|things|answers?|data|dates?)\s+up\b",
        r"\b(?:write|create|make|generate|draft|produce)\b[^.?!]{0,30}\b(?:fake|forged|counterfeit|fraudulent|"
        r"convincing|official)\b[^.?!]{0,30}\b(?:letter|transcript|diploma|certificate|signature|document|note)s?\b",
        r"\bpresent (?:it|them|this) as (?:official|fact|true)\b|\bnobody will check\b",
    )),
    Rule("citations", "asks me to drop the citations to the documents", _any(
        ORDER + r"(?:skip|drop|omit|stop|remove|leave\s+out|forget)\s+(?:the\s+|any\s+|all\s+|your\s+)?"
        r"(?:citations?|citing|sources|references)\b",
        r"\b(?:never|don'?t|do not|no need to|must stop|stop)\s+cit(?:e|ing)\b|\bno (?:citations?|sources) "
        r"(?:needed|necessary|required|please)\b",
        r"\b(?:answer|respond|reply|write|say)\w*\b[^.?!]{0,40}\bwithout (?:citing|citations?|sources|references)\b",
        r"\bsin (?:citar|fuentes)\b|\bsans (?:citer|sources?)\b|\bohne (?:quellen|zitate)\b",
    )),
    Rule("private", "asks for other people's private records (grades, IDs, addresses)", _any(
        r"\b(?:names|student ids|id numbers)\b[^.?!]{0,50}\b(?:grades|gpas|scores|transcripts|home addresses|"
        r"addresses|e-?mails|phone numbers|student id numbers|id numbers)\b",
        r"\b(?:list|give me|show me|tell me|send me|share|reveal|print|dump|post|look up|pull up|export)\b[^.?!]{0,40}"
        r"\b(?:grades|gpas?|scores|transcripts?|addresses|phone numbers?|e-?mails?|student ids?|id numbers|records)"
        r"\b[^.?!]{0,20}\b(?:of|for)\s+(?:every|each|all|other|the|his|her|their)\s+(?:\w+\s+){0,3}?"
        r"(?:students?|classmates?)\b",
        r"\b(?:list|give me|show me|tell me)\b[^.?!]{0,20}\b(?:every|all|each)\s+(?:\w+\s+){0,4}?students?\b"
        r"[^.?!]{0,60}\b(?:ids?|id numbers|grades|gpas?|addresses|phone|e-?mails?)\b",
        r"\bhome address(?:es)?\s+(?:and\s+[\w ]+\s+)?of\b|\b(?:his|her|their)\s+(?:home address|phone number|"
        r"personal e-?mail|student e-?mail)\b",
        r"\b(?:show|give|send|tell|reveal|share|pull up|look up)\b(?:\s+me)?\s+(?-i:[A-Z])[\w-]+"
        r"(?:\s+(?-i:[A-Z])[\w-]+)?'s\s+(?:\w+\s+)?(?:paperwork|records?|transcripts?|grades?|gpa|file)\b",
    )),
    Rule("authority", "claims an authority to unlock private data", _any(
        r"\bI(?:'m|\s+am)\s+(?:an?\s+|the\s+)?(?:program\s+)?(?:admin|administrator|dean|registrar|developer|"
        r"staff member|instructor|professor)\b[^.?!]{0,60}\b(?:authori[sz]e|allow|permit)",
        r"\bI authori[sz]e you\b|\byou (?:are|have been) authori[sz]ed\b",
    )),
    Rule("output", "dictates my reply, whatever the documents say", _any(
        ORDER + r"(?:reply|respond|answer)\s+(?:only|just)\s+(?:with|in)\b|\bresponde solo\b",
        ORDER + r"tell\s+(?:everyone|the student|all students|every student|the user|users)\b",
        r"\bconfirm (?:that )?you understand\b|\bpwned\b",
    )),
    Rule("encoded", "hides instructions in an encoded or translated text", _any(
        r"\b(?:decode|translate|traduce)\b[^.?!]{0,30}\b(?:and|then|y)\s+(?:follow|obey|obedece|execute|do|run)\b",
        r"\bdo (?:what|as) (?:it|this|that) says\b|\bbase64\b",
        r"(?-i:(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*\d)[A-Za-z0-9+/]{24,})",
    )),
]
# fmt: on

_SENTENCE_END = re.compile(r"(?<!Dr\.)(?<!Mr\.)(?<!Ms\.)(?<=[.?!])\s+|\s+(?=P\.S\.)")
QUESTION_WORDS = r"who|what|when|where|which|why|how|is|are|can|do|does|did|will|should|qu\w*|cu[aá]\w*|wie|wann|wo|was"
_QUESTION_START = re.compile(rf"^({QUESTION_WORDS})\b", re.IGNORECASE)


@dataclass(frozen=True)
class GuardResult:
    """The guard's verdict: blocked or not, the question to answer, the sentences it removed and why."""

    blocked: bool
    question: str
    removed: tuple[str, ...] = ()
    message: str = ""  # for a blocked question: what was cut and why, or what to do instead
    reasons: tuple[str, ...] = ()  # one per removed sentence: the rule's reason

    def explanation(self) -> str:
        """One line per removed sentence: the words cut and the reason (empty when nothing was cut)."""
        pairs = zip(self.removed, self.reasons, strict=True)
        return " ".join(f"I left out “{_short(sentence)}” because it {reason}." for sentence, reason in pairs)


def _short(sentence: str, limit: int = 90) -> str:
    """The sentence, cut to `limit` characters with an ellipsis."""
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def matching_rule(text: str, rules: Sequence[Rule] | None = None) -> Rule | None:
    """The first rule whose pattern matches `text`, or None."""
    return next((rule for rule in (RULES if rules is None else rules) if rule.search(text)), None)


def is_injection(text: str, rules: Sequence[Rule] | None = None) -> bool:
    """Whether any injection rule matches `text`."""
    return matching_rule(text, rules) is not None


def check_input(question: str, rules: Sequence[Rule] | None = None) -> GuardResult:
    """Drop injected sentences; block the question when no real question is left (or it is empty or too long)."""
    # (a blocked question keeps its text, for callers that only read `.question`)
    if not any(character.isalnum() for character in question):
        return GuardResult(True, question, message="Please type a question: this one has no words in it.")
    if len(question.strip()) > MAX_QUESTION_CHARS:
        length = len(question.strip())
        return GuardResult(
            True,
            question,
            message=f"Please shorten the question to {MAX_QUESTION_CHARS:,} characters "
            f"(it has {length:,}); ask about one thing at a time.",
        )
    sentences = [s for s in _SENTENCE_END.split(question.strip()) if s]
    found = [(s, matching_rule(s, rules)) for s in sentences]
    removed = tuple(s for s, rule in found if rule is not None)
    if not removed:
        return GuardResult(False, question)
    reasons = tuple(rule.reason for _, rule in found if rule is not None)
    kept = [s for s in sentences if s not in removed and s.strip() != "P.S."]
    asks = [s for s in kept if s.rstrip().endswith("?") or _QUESTION_START.match(s)]
    result = GuardResult(not asks, " ".join(kept), removed, reasons=reasons)
    if result.blocked:
        message = f"{REJECTION} {result.explanation()} Ask about the program again without that part."
        result = GuardResult(True, result.question, removed, message, reasons)
    return result


SIGN_OFFS = [
    r"\b(best|kind|warm)? ?regards\b.*$",
    r"\b(sincerely|cheers)\b.*$",
    r"\[your name\].*$",
    r"\bI hope (this|that) helps\b.*$",
    r"\b(feel free|don'?t hesitate) to (ask|reach out|contact)\b.*$",
    r"\blet me know if you (have|need)\b.*$",
]
REDIRECTS = [
    r"[^.?!]*\b(check|visit|see|consult)\b[^.?!]{0,40}\b(website|web site|online|internet|google)\b[^.?!]*[.?!]?",
    r"[^.?!]*\bcontact\b[^.?!]{0,60}\bfor (more|further|additional) (information|details)\b[^.?!]*[.?!]?",
]
_SIGN_OFFS = [re.compile(p, re.IGNORECASE | re.DOTALL) for p in SIGN_OFFS]
_REDIRECTS = [re.compile(p, re.IGNORECASE) for p in REDIRECTS]


def clean_output(text: str) -> str:
    """The answer without sign-offs and redirects away from the documents, white space tidied."""
    for pattern in _REDIRECTS:
        text = pattern.sub("", text)
    for pattern in _SIGN_OFFS:
        text = pattern.sub("", text)
    return " ".join(text.split()).strip(" ,-")
