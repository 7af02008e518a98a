#!/usr/bin/env python3
"""Render course_data/build/web/src/*.txt (mini-markup) into saved-site HTML pages in course_data/docs/web/.

Run: .venv/bin/python course_data/build/web/build.py [page.html ...]
"""
import hashlib
import html
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SRC = HERE / "src"
OUT = REPO / "course_data" / "docs" / "web"
BASE = "https://datascience.lakeside.edu"

# (src, outfile, path, title, crumbs, target_noise, variant)
PAGES = [
    ("index", "index.html", "/", "MS in Applied Data Science | Lakeside University", [], 0.66, 0),
    ("curriculum", "curriculum.html", "/curriculum", "Curriculum", [("Program", "/curriculum")], 0.62, 1),
    ("track_mle", "tracks-machine-learning-engineering.html", "/tracks/machine-learning-engineering",
     "Machine Learning Engineering Track", [("Program", "/curriculum"), ("Tracks", "/curriculum")], 0.66, 2),
    ("track_adsc", "tracks-analytics-decision-science.html", "/tracks/analytics-decision-science",
     "Analytics and Decision Science Track", [("Program", "/curriculum"), ("Tracks", "/curriculum")], 0.67, 2),
    ("admissions", "admissions.html", "/admissions", "Admissions", [], 0.68, 3),
    ("admissions", "admissions-2027-entry.html", "/admissions/2027-entry", "Admissions", [], 0.68, 4),
    ("international", "admissions-international.html", "/admissions/international", "International Admissions",
     [("Admissions", "/admissions")], 0.69, 3),
    ("tuition", "tuition-and-fees.html", "/tuition-and-fees", "Tuition and Fees", [("Admissions", "/admissions")], 0.64, 5),
    ("scholarships", "scholarships.html", "/scholarships", "Scholarships and Funding", [("Admissions", "/admissions")], 0.70, 5),
    ("faculty", "faculty.html", "/faculty", "Faculty and Staff Directory", [("People", "/faculty")], 0.65, 6),
    ("policies", "policies.html", "/policies", "Academic Policies", [("Current Students", "/policies")], 0.61, 7),
    ("capstone", "capstone-studio.html", "/capstone-studio", "Capstone Studio", [("Program", "/curriculum")], 0.71, 1),
    ("careers", "careers.html", "/careers", "Careers and Outcomes", [("Current Students", "/policies")], 0.70, 6),
    ("student_life", "student-life.html", "/student-life", "Student Life", [("Current Students", "/policies")], 0.72, 7),
    ("certificate", "graduate-certificate.html", "/graduate-certificate", "Graduate Certificate in Data Analytics",
     [("Program", "/curriculum")], 0.66, 0),
    ("contact", "contact.html", "/contact", "Contact Us", [], 0.70, 4),
    ("news", "news-events.html", "/news-events", "News and Events", [], None, 8),
    ("faq", "faq.html", "/faq", "Frequently Asked Questions", [], 0.60, 5),
]

NAV = [
    ("Home", "/", []),
    ("Program", "/curriculum", [("Curriculum", "/curriculum"),
                                 ("Machine Learning Engineering", "/tracks/machine-learning-engineering"),
                                 ("Analytics and Decision Science", "/tracks/analytics-decision-science"),
                                 ("Capstone Studio", "/capstone-studio"),
                                 ("Graduate Certificate", "/graduate-certificate")]),
    ("Admissions", "/admissions", [("How to Apply", "/admissions"), ("International Applicants", "/admissions/international"),
                                   ("Tuition and Fees", "/tuition-and-fees"), ("Scholarships", "/scholarships")]),
    ("People", "/faculty", [("Faculty and Staff", "/faculty")]),
    ("Current Students", "/policies", [("Academic Policies", "/policies"), ("Class Schedule", "/class-schedule"),
                                       ("Academic Calendar", "/academic-calendar"), ("Student Life", "/student-life"),
                                       ("Careers", "/careers")]),
    ("News &amp; Events", "/news-events", []),
    ("FAQ", "/faq", []),
    ("Contact", "/contact", []),
]

# ---------------------------------------------------------------- mini-markup -> HTML

def inline(text):
    t = html.escape(text, quote=False)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', t)
    t = re.sub(r"(https://datascience\.lakeside\.edu/[a-z/\-]*)(?![^<]*</a>)(?![^<]*\">)",
               r'<a href="\1">\1</a>', t)
    t = re.sub(r"\b([a-z0-9.\-]+@(?:u\.)?lakeside\.edu)\b", r'<a href="mailto:\1">\1</a>', t)
    return t


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


WIDGETS = {}


def convert(src_text, page_key, variant):
    blocks = [b.strip("\n") for b in re.split(r"\n\s*\n", src_text) if b.strip()]
    out = []
    faq = page_key == "faq"
    open_faq = False
    open_section = False
    for b in blocks:
        lines = b.split("\n")
        first = lines[0]
        if first.startswith("@@"):
            out.append(WIDGETS[first[2:].strip()](page_key, variant))
            continue
        m = re.match(r"^(#{1,4}) (.*)$", first)
        if m and len(lines) == 1:
            level = len(m.group(1))
            text = m.group(2)
            if faq and open_faq:
                out.append("</div>")
                open_faq = False
            if level == 2:
                if open_section:
                    out.append("</section>")
                out.append(f'<section class="content-section" id="{slug(text)}">')
                open_section = True
            if faq and level == 3:
                out.append(f'<div class="faq-item" id="q-{slug(text)[:40]}">')
                open_faq = True
                out.append(f'<h3 class="faq-question">{inline(text)}</h3>')
                continue
            if level == 1:
                out.append(f'<h1 class="page-title">{inline(text)}</h1>')
            else:
                out.append(f'<h{level} id="h-{slug(text)}">{inline(text)}</h{level}>')
            continue
        if all(line.startswith("- ") for line in lines):
            items = "".join(f"<li>{inline(line[2:])}</li>" for line in lines)
            out.append(f"<ul>{items}</ul>")
            continue
        if all(re.match(r"^\d+\. ", line) for line in lines):
            items = "".join("<li>" + inline(re.sub(r"^\d+\. ", "", line)) + "</li>" for line in lines)
            out.append(f"<ol>{items}</ol>")
            continue
        if all(line.startswith("|") for line in lines):
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
            head = "".join(f'<th scope="col">{inline(c)}</th>' for c in rows[0])
            body = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
            out.append(f'<div class="table-wrap"><table class="data-table"><thead><tr>{head}</tr></thead>'
                       f"<tbody>{body}</tbody></table></div>")
            continue
        if len(lines) > 1:  # address-like block
            out.append('<p class="contact-block">' + "<br>\n".join(inline(line) for line in lines) + "</p>")
            continue
        if first.startswith('"') or first.startswith("\u201c"):
            out.append(f'<blockquote class="pull-quote"><p>{inline(first)}</p></blockquote>')
            continue
        cls = ' class="lede"' if not out or out[-1].startswith("<h1") else ""
        out.append(f"<p{cls}>{inline(first)}</p>")
    if open_faq:
        out.append("</div>")
    if open_section:
        out.append("</section>")
    return "\n".join(out)


# ---------------------------------------------------------------- in-main widgets (all carry noise tokens)

def w_share(page, v):
    nets = ["facebook", "x", "linkedin", "reddit", "email", "copy-link"][: 4 + v % 3]
    btns = "".join(
        f'<li><a class="share-btn share-btn--{n}" href="https://share.example/{n}?u={BASE}" '
        f'rel="noopener" target="_blank" aria-label="Share on {n.title()}"><svg width="18" height="18" viewBox="0 0 24 24" '
        f'aria-hidden="true"><path d="M12 2C6.5 2 2 6.5 2 12s4.5 10 10 10 10-4.5 10-10S17.5 2 12 2zm3 8h-2v-1c0-.6.4-1 1-1h1V6h-2'
        f'c-2.2 0-3 1.3-3 3v1H8v2h2v6h3v-6h2l.3-2z"/></svg><span class="sr-only">{n}</span></a></li>' for n in nets)
    return (f'<div class="social-share share-bar" data-share-count="{(v * 37) % 211}"><span class="share-label">Share this page</span>'
            f'<ul class="share-list">{btns}</ul></div>')


def w_ad(page, v):
    sponsors = [("Northwind Mutual Insurance", "Analytics careers that protect what matters."),
                ("Quillfeather Software", "Build the tools data teams love. We are hiring."),
                ("Lakeshore Energy Cooperative", "Powering Harbor City with data-driven decisions."),
                ("Pinecrest Bank", "Model risk, fraud and forecasting roles for new graduates.")]
    name, line = sponsors[v % len(sponsors)]
    return (f'<aside class="ad-slot sponsor-block" data-ad-unit="scds-inline-{v}" aria-label="Sponsored">'
            f'<span class="ad-label">Sponsored</span><a href="https://ads.example/click?c={v}" rel="sponsored noopener">'
            f'<img src="/media/sponsors/{slug(name)}.png" alt="{name}" width="300" height="120" loading="lazy">'
            f'<strong>{name}</strong> <span>{line}</span></a></aside>')


def w_cta(page, v):
    return ('<div class="promo-cta cta-banner"><h2 class="promo-title">Ready to apply for Autumn 2027?</h2>'
            '<p>Start your application today or join a virtual information session.</p>'
            '<a class="btn btn-primary" href="https://apply.lakeside.edu/grad/ads">Apply now</a> '
            '<a class="btn btn-ghost" href="/admissions#discover-ads-information-sessions">Request information</a></div>')


def w_related(page, v):
    return ('<aside class="related-links" aria-label="Related pages"><h2>Related</h2><ul>'
            '<li><a href="/faq">Frequently asked questions</a></li><li><a href="/news-events">News and events</a></li>'
            '<li><a href="/contact">Contact us</a></li></ul></aside>')


WIDGETS.update(share=w_share, ad=w_ad, cta=w_cta, related=w_related)

# ---------------------------------------------------------------- chrome

LOGO = ('<svg class="logo-mark" width="44" height="44" viewBox="0 0 64 64" role="img" aria-label="Lakeside University">'
        '<title>Lakeside University</title><circle cx="32" cy="32" r="30" fill="#0b3d5c"/>'
        '<path d="M10 40c6-4 12-4 18 0s12 4 18 0 8-3 8-3v6s-2 2-8 3-12-4-18-4-12 4-18 1z" fill="#7fc4e8"/>'
        '<path d="M20 34l12-20 12 20z" fill="#f4b942"/><path d="M28 34l4-7 4 7z" fill="#0b3d5c"/></svg>')


def nav_html(current):
    items = []
    for label, href, sub in NAV:
        active = ' aria-current="page"' if href == current else ""
        if sub:
            cur = ' aria-current="page"'
            subs = "".join(f'<li><a href="{h}"{cur if h == current else ""}>{sub_label}</a></li>' for sub_label, h in sub)
            items.append(f'<li class="menu-item has-children"><a href="{href}"{active} aria-haspopup="true">{label}</a>'
                         f'<ul class="sub-menu">{subs}</ul></li>')
        else:
            items.append(f'<li class="menu-item"><a href="{href}"{active}>{label}</a></li>')
    return ('<nav class="site-nav main-menu" aria-label="Main menu"><button class="menu-toggle" aria-expanded="false" '
            'aria-controls="primary-menu">Menu</button><ul id="primary-menu" class="menu">' + "".join(items) + "</ul></nav>")


BASE_CSS = """
:root{--lu-navy:#0b3d5c;--lu-lake:#7fc4e8;--lu-gold:#f4b942;--lu-ink:#1d2731;--lu-muted:#5b6874;--lu-bg:#f7f9fb;--radius:6px;--maxw:1180px}
*,*::before,*::after{box-sizing:border-box}html{font-size:100%;-webkit-text-size-adjust:100%}
body{margin:0;font-family:"Source Sans 3","Helvetica Neue",Arial,sans-serif;color:var(--lu-ink);background:#fff;line-height:1.6}
a{color:#0a5c8a;text-decoration-thickness:1px;text-underline-offset:2px}a:hover{color:var(--lu-navy)}
.sr-only{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.skip-link{position:absolute;left:-999px;top:0;background:var(--lu-gold);color:#000;padding:.5rem 1rem;z-index:1000}.skip-link:focus{left:0}
.utility-bar{background:var(--lu-navy);color:#fff;font-size:.8125rem}.utility-bar a{color:#fff;margin-right:1rem}
.site-header{border-bottom:4px solid var(--lu-gold);background:#fff;position:sticky;top:0;z-index:50}
.site-header .inner{max-width:var(--maxw);margin:0 auto;display:flex;align-items:center;gap:1.5rem;padding:.75rem 1rem}
.brand{display:flex;align-items:center;gap:.75rem;text-decoration:none;color:var(--lu-navy)}.brand-name{font-weight:700;font-size:1.125rem;line-height:1.1}
.brand-sub{display:block;font-size:.75rem;font-weight:400;color:var(--lu-muted)}
.menu{list-style:none;margin:0;padding:0;display:flex;gap:1.25rem}.menu a{text-decoration:none;font-weight:600;color:var(--lu-ink)}
.menu-item{position:relative}.sub-menu{display:none;position:absolute;top:100%;left:0;min-width:240px;background:#fff;box-shadow:0 8px 24px rgba(0,0,0,.12);list-style:none;padding:.5rem 0;margin:0}
.has-children:hover>.sub-menu,.has-children:focus-within>.sub-menu{display:block}.sub-menu a{display:block;padding:.4rem 1rem;font-weight:400}
.menu-toggle{display:none}@media (max-width:900px){.menu-toggle{display:block}.menu{display:none;flex-direction:column}.menu.open{display:flex}}
.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;padding:0;margin:1rem 0;font-size:.875rem;color:var(--lu-muted)}
.breadcrumbs li+li::before{content:"\\203A";margin:0 .4rem}
.page-wrap{max-width:var(--maxw);margin:0 auto;padding:0 1rem 3rem;display:grid;grid-template-columns:minmax(0,1fr) 300px;gap:2.5rem}
@media (max-width:960px){.page-wrap{grid-template-columns:1fr}}
.page-title{font-size:2.25rem;line-height:1.15;color:var(--lu-navy);margin:.5rem 0 1rem}.lede{font-size:1.1875rem;color:#2c3a46}
h2{font-size:1.5rem;color:var(--lu-navy);margin:2rem 0 .75rem}h3{font-size:1.1875rem;margin:1.5rem 0 .5rem}h4{font-size:1rem;margin:1.25rem 0 .25rem}
.table-wrap{overflow-x:auto;margin:1rem 0 1.5rem}.data-table{border-collapse:collapse;width:100%;font-size:.9375rem}
.data-table th,.data-table td{border:1px solid #d5dde4;padding:.5rem .65rem;text-align:left;vertical-align:top}.data-table thead th{background:#eaf2f8}
.data-table tbody tr:nth-child(even){background:#fafcfd}
.pull-quote{border-left:4px solid var(--lu-gold);margin:1.5rem 0;padding:.25rem 1rem;font-style:italic;color:#34414c}
.faq-item{border-top:1px solid #e3e8ec;padding:.25rem 0}.faq-question{cursor:pointer}
.social-share{display:flex;align-items:center;gap:.75rem;margin:2rem 0;padding:.75rem 0;border-top:1px solid #e3e8ec;border-bottom:1px solid #e3e8ec}
.share-list{list-style:none;display:flex;gap:.5rem;margin:0;padding:0}.share-btn{display:inline-flex;width:34px;height:34px;border-radius:50%;background:#eef3f7;align-items:center;justify-content:center}
.ad-slot{border:1px dashed #c8d2da;padding:.75rem;margin:2rem 0;background:#fbfcfd;font-size:.875rem}.ad-label{display:block;text-transform:uppercase;letter-spacing:.08em;font-size:.6875rem;color:var(--lu-muted)}
.promo-cta{background:var(--lu-navy);color:#fff;border-radius:var(--radius);padding:1.5rem;margin:2rem 0}.promo-cta h2{color:#fff;margin-top:0}
.btn{display:inline-block;padding:.6rem 1.1rem;border-radius:999px;font-weight:700;text-decoration:none}.btn-primary{background:var(--lu-gold);color:#111}.btn-ghost{border:2px solid #fff;color:#fff}
.sidebar{font-size:.9375rem}.sidebar .card{background:var(--lu-bg);border-radius:var(--radius);padding:1rem 1.25rem;margin-bottom:1.25rem}
.cookie-banner{position:fixed;left:1rem;right:1rem;bottom:1rem;z-index:200;background:#13212c;color:#fff;border-radius:var(--radius);padding:1rem 1.25rem;display:flex;gap:1rem;align-items:center;box-shadow:0 10px 30px rgba(0,0,0,.3)}
.cookie-banner[data-state=accepted]{display:none}.cookie-banner a{color:var(--lu-lake)}
.newsletter-popup{position:fixed;inset:0;background:rgba(8,20,30,.55);display:none;align-items:center;justify-content:center;z-index:300}.newsletter-popup.is-open{display:flex}
.newsletter-popup .dialog-inner{background:#fff;max-width:440px;border-radius:10px;padding:2rem;position:relative}
.site-footer{background:#0b2536;color:#d8e4ec;font-size:.875rem;padding:2.5rem 1rem}.site-footer a{color:#d8e4ec}
.site-footer .cols{max-width:var(--maxw);margin:0 auto;display:grid;grid-template-columns:repeat(4,1fr);gap:2rem}
.footer-social{display:flex;gap:.75rem;list-style:none;padding:0}.legal{max-width:var(--maxw);margin:2rem auto 0;border-top:1px solid #24465c;padding-top:1rem;color:#9fb3c1}
@media print{.site-header,.site-footer,.cookie-banner,.newsletter-popup,.social-share,.ad-slot,.sidebar{display:none}}
"""


def util_css(rng, n_bytes):
    """Realistic-looking utility/theme CSS of about n_bytes."""
    props = [("m", "margin"), ("mt", "margin-top"), ("mb", "margin-bottom"), ("ml", "margin-left"), ("mr", "margin-right"),
             ("p", "padding"), ("pt", "padding-top"), ("pb", "padding-bottom"), ("px", "padding-inline"),
             ("py", "padding-block"), ("gap", "gap"), ("w", "width"), ("maxw", "max-width"), ("h", "height")]
    colors = ["navy", "lake", "gold", "ink", "muted", "slate", "sand", "teal", "coral", "moss"]
    hexes = ["#0b3d5c", "#7fc4e8", "#f4b942", "#1d2731", "#5b6874", "#46566a", "#efe3c8", "#1e8a8a", "#e86f5a", "#6b8f4e"]
    bps = ["", "sm\\:", "md\\:", "lg\\:", "xl\\:"]
    out, size = [], 0
    while size < n_bytes:
        kind = rng.random()
        bp = rng.choice(bps)
        if kind < 0.45:
            a, p = rng.choice(props)
            k = rng.randint(0, 16)
            rule = f".{bp}u-{a}-{k}{{{p}:{k * 0.25:g}rem}}"
        elif kind < 0.7:
            i = rng.randrange(len(colors))
            what = rng.choice([("text", "color"), ("bg", "background-color"), ("border", "border-color")])
            rule = f".{bp}{what[0]}-{colors[i]}-{rng.choice([50,100,200,300,400,500,600,700,800,900])}{{{what[1]}:{hexes[i]}}}"
        elif kind < 0.85:
            sel = rng.choice(["card", "tile", "hero", "callout", "accordion", "tabs", "stat", "event-card", "profile"])
            el = rng.choice(["__title", "__body", "__meta", "__media", "--featured", "--compact", "__footer", "__icon"])
            rule = (f".c-{sel}{el}{{display:{rng.choice(['flex','grid','block','inline-flex'])};"
                    f"font-size:{rng.choice(['.875rem','1rem','1.125rem','.75rem'])};"
                    f"line-height:{rng.choice(['1.2','1.4','1.5','1.6'])};border-radius:{rng.randint(0,12)}px}}")
        else:
            rule = (f"@media (min-width:{rng.choice([480,640,768,1024,1280])}px){{.grid-cols-{rng.randint(1,12)}"
                    f"{{grid-template-columns:repeat({rng.randint(1,12)},minmax(0,1fr))}}}}")
        out.append(rule)
        size += len(rule) + 1
    return "\n".join(out)


def analytics_snippet(variant, dup=False):
    gid = "G-LU7QX3D2MS"
    extra = ""
    if dup:
        extra = """
/* campaign landing page: 2027 entry paid search */
!function(f,b,e,v,n,t,s){if(f.lqp)return;n=f.lqp=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};
if(!f._lqp)f._lqp=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];t=b.createElement(e);t.async=!0;t.src=v;
s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,document,'script','https://px.adnet.example/events.js');
lqp('init','4410928830217');lqp('track','PageView');lqp('track','ViewContent',{content_name:'ads-2027-entry-landing',utm_campaign:'ads_fall27_search'});"""
    return f"""<script async src="https://www.googletagmanager.com/gtag/js?id={gid}"></script>
<script>
window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments);}}
gtag('consent','default',{{ad_storage:'denied',analytics_storage:'denied',wait_for_update:500}});
gtag('js',new Date());gtag('config','{gid}',{{anonymize_ip:true,page_type:'{['landing','program','track','admissions','campaign','finance','people','policy','events'][variant]}',content_group:'scds-ads'}});
(function(w,d,s,l,i){{w[l]=w[l]||[];w[l].push({{'gtm.start':new Date().getTime(),event:'gtm.js'}});var f=d.getElementsByTagName(s)[0],
j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;j.src='https://www.googletagmanager.com/gtm.js?id='+i+dl;f.parentNode.insertBefore(j,f);
}})(window,document,'script','dataLayer','GTM-W8LKS{variant}P');{extra}
</script>"""


def jsonld(title, url, crumbs, page_key, src_text):
    graph = [{"@type": "CollegeOrUniversity", "@id": BASE + "/#org", "name": "Lakeside University",
              "department": {"@type": "EducationalOrganization", "name": "School of Computing and Data Sciences"},
              "address": {"@type": "PostalAddress", "streetAddress": "1200 Lakeshore Drive", "addressLocality": "Harbor City",
                          "addressRegion": "WL", "postalCode": "53817", "addressCountry": "US"},
              "sameAs": ["https://social.example/lakesideu", "https://video.example/@lakesidescds"]},
             {"@type": "WebPage", "@id": url, "url": url, "name": title, "isPartOf": {"@id": BASE + "/#website"},
              "inLanguage": "en-US", "dateModified": "2026-09-14"},
             {"@type": "BreadcrumbList", "itemListElement": [
                 {"@type": "ListItem", "position": i + 1, "name": n, "item": BASE + h}
                 for i, (n, h) in enumerate([("Home", "/")] + crumbs + ([(title, url.replace(BASE, ""))] if url != BASE + "/" else []))]}]
    if page_key in ("index", "curriculum"):
        graph.append({"@type": "EducationalOccupationalProgram", "name": "MS in Applied Data Science",
                      "educationalCredentialAwarded": "Master of Science", "timeToComplete": "P15M",
                      "programPrerequisites": "Bachelor's degree", "provider": {"@id": BASE + "/#org"}})
    return '<script type="application/ld+json">' + json.dumps({"@context": "https://schema.org", "@graph": graph},
                                                               separators=(",", ":")) + "</script>"


def cookie_banner(v):
    texts = ["We use cookies to understand how visitors use this site and to improve your experience.",
             "This website uses cookies for analytics and to personalize content. You can change your choices at any time.",
             "Lakeside University uses cookies and similar technologies. See our privacy notice for details."]
    return (f'<div class="cookie-banner consent-banner" id="cookie-consent" role="dialog" aria-live="polite" '
            f'aria-label="Cookie consent" data-state="pending"><p>{texts[v % 3]} <a href="https://www.lakeside.edu/privacy">'
            f'Privacy notice</a></p><div class="cookie-actions"><button type="button" class="btn btn-primary" data-consent="accept">'
            f'Accept all</button><button type="button" class="btn btn-ghost" data-consent="reject">Reject non-essential</button>'
            f'<button type="button" class="btn-link" data-consent="settings">Cookie settings</button></div></div>')


def newsletter(v):
    heads = ["Get program updates in your inbox", "Stay in touch with Lakeside Data Science",
             "Never miss an information session"]
    return (f'<div class="newsletter-popup modal" id="newsletter-modal" role="dialog" aria-modal="true" '
            f'aria-labelledby="nl-title" data-delay="{15 + v * 5}000"><div class="dialog-inner">'
            f'<button class="modal-close" type="button" aria-label="Close">&times;</button>'
            f'<h2 id="nl-title">{heads[v % 3]}</h2><p>Monthly news about admissions, events and student stories.</p>'
            '<form class="newsletter-form" action="https://lists.lakeside.edu/subscribe" method="post">'
            '<label for="nl-email">E-mail address</label><input id="nl-email" type="email" name="email" required '
            'autocomplete="email" placeholder="you@example.com"><label><input type="checkbox" name="consent" required> '
            'I agree to receive e-mail from Lakeside University.</label><button type="submit" class="btn btn-primary">Subscribe</button>'
            '</form></div></div>')


def sidebar(v, page_key):
    cards = [
        '<div class="card"><h2 class="card-title">Request information</h2><p>Tell us about yourself and we will send you '
        'program details.</p><a class="btn btn-primary" href="/admissions">Get started</a></div>',
        '<div class="card"><h2 class="card-title">Upcoming events</h2><ul><li><a href="/news-events">Discover ADS info sessions</a></li>'
        '<li><a href="/news-events">Autumn Data Careers Fair</a></li><li><a href="/news-events">Capstone Showcase</a></li></ul></div>',
        '<div class="card"><h2 class="card-title">Quick links</h2><ul><li><a href="/class-schedule">Class schedule</a></li>'
        '<li><a href="/academic-calendar">Academic calendar</a></li><li><a href="https://canvas.lakeside.edu">Canvas</a></li>'
        '<li><a href="https://lakeside.joinhandshake.example">Handshake</a></li></ul></div>',
        '<div class="card"><h2 class="card-title">Visit campus</h2><p>Tours of the Marlowe Data Science Center are offered most weekdays.</p></div>',
        '<div class="card sponsor-strip"><span class="ad-label">Our partners</span><ul class="logo-row">'
        '<li><img src="/media/partners/cobalt-harbor-health.svg" alt="Cobalt Harbor Health" width="120" height="40"></li>'
        '<li><img src="/media/partners/brightline.svg" alt="Brightline Logistics" width="120" height="40"></li>'
        '<li><img src="/media/partners/meridian.svg" alt="Meridian Sports Group" width="120" height="40"></li></ul></div>',
    ]
    pick = [cards[i] for i in range(len(cards)) if (i + v) % 3 != 0] or cards[:2]
    return '<aside class="sidebar" aria-label="Sidebar">' + "".join(pick) + "</aside>"


def footer(v):
    cols = [
        ('Lakeside University', '<p>School of Computing and Data Sciences<br>Marlowe Data Science Center<br>1200 Lakeshore Drive<br>'
         'Harbor City, WL 53817</p><p>(555) 284-3100<br><a href="mailto:ads-students@lakeside.edu">ads-students@lakeside.edu</a></p>'),
        ('Program', '<ul><li><a href="/curriculum">Curriculum</a></li><li><a href="/tracks/machine-learning-engineering">MLE track</a></li>'
         '<li><a href="/tracks/analytics-decision-science">ADSc track</a></li><li><a href="/capstone-studio">Capstone Studio</a></li>'
         '<li><a href="/graduate-certificate">Graduate Certificate</a></li><li><a href="/faculty">Faculty</a></li></ul>'),
        ('Students', '<ul><li><a href="/policies">Policies</a></li><li><a href="/class-schedule">Class schedule</a></li>'
         '<li><a href="/academic-calendar">Academic calendar</a></li><li><a href="/student-life">Student life</a></li>'
         '<li><a href="/careers">Careers</a></li><li><a href="/faq">FAQ</a></li></ul>'),
        ('Connect', '<ul class="footer-social social-links">' + "".join(
            f'<li><a href="https://social.example/{n}/lakesidescds" aria-label="{n}"><svg width="20" height="20" viewBox="0 0 24 24" '
            f'aria-hidden="true"><rect x="2" y="2" width="20" height="20" rx="5"/></svg></a></li>'
            for n in ["linkedin", "instagram", "youtube", "x", "mastodon"][: 3 + v % 3]) + '</ul>'
         '<p><a href="/contact">Contact us</a> | <a href="/news-events">News</a></p>'),
    ]
    body = "".join(f'<div class="footer-col"><h2 class="footer-heading">{h}</h2>{c}</div>' for h, c in cols)
    return ('<footer class="site-footer" role="contentinfo"><div class="cols">' + body + '</div><div class="legal">'
            '<p>&copy; 2026 Lakeside University. All rights reserved. <a href="https://www.lakeside.edu/privacy">Privacy</a> | '
            '<a href="https://www.lakeside.edu/accessibility">Accessibility</a> | <a href="https://www.lakeside.edu/nondiscrimination">'
            'Non-discrimination</a> | <a href="/sitemap.xml">Sitemap</a></p></div></footer>')


SITE_JS = """<script>
(function(){var KEY='lu_consent_v3',b=document.getElementById('cookie-consent');function set(v){try{localStorage.setItem(KEY,JSON.stringify({v:v,t:Date.now()}))}catch(e){}
if(b)b.setAttribute('data-state',v);if(v==='accepted'&&window.gtag){gtag('consent','update',{analytics_storage:'granted',ad_storage:'granted'})}}
try{var s=JSON.parse(localStorage.getItem(KEY)||'null');if(s&&Date.now()-s.t<15552e6){set(s.v)}}catch(e){}
if(b){b.addEventListener('click',function(e){var c=e.target.getAttribute('data-consent');if(c==='accept')set('accepted');else if(c==='reject')set('rejected');
else if(c==='settings'){window.location.hash='#cookie-settings'}})}
var m=document.getElementById('newsletter-modal');if(m&&!sessionStorage.getItem('lu_nl_seen')){setTimeout(function(){m.classList.add('is-open');
sessionStorage.setItem('lu_nl_seen','1')},parseInt(m.getAttribute('data-delay')||'20000',10));m.addEventListener('click',function(e){
if(e.target===m||e.target.classList.contains('modal-close'))m.classList.remove('is-open')})}
var t=document.querySelector('.menu-toggle'),menu=document.getElementById('primary-menu');if(t&&menu){t.addEventListener('click',function(){
var o=menu.classList.toggle('open');t.setAttribute('aria-expanded',o?'true':'false')})}
document.querySelectorAll('.share-btn').forEach(function(a){a.addEventListener('click',function(){if(window.gtag)gtag('event','share',{method:a.className.split('--')[1],content_type:'page'})})});
document.querySelectorAll('a[href^="mailto:"]').forEach(function(a){a.addEventListener('click',function(){if(window.gtag)gtag('event','contact_email',{address:a.getAttribute('href').slice(7)})})});
})();
</script>"""

CHAT_JS = """<div id="lu-chat-root" class="chat-launcher" data-bot="ads-admissions-assistant"></div>
<script>
window.LUChatConfig={botId:'ads-admissions-assistant',greeting:'Hi! Questions about the MS in Applied Data Science?',position:'bottom-right',
offlineMessage:'Our team is offline. Leave a message and we will reply by e-mail.',theme:{primary:'#0b3d5c',accent:'#f4b942'},
hours:{tz:'site',mon:['08:30','17:00'],tue:['08:30','17:00'],wed:['08:30','17:00'],thu:['08:30','17:00'],fri:['08:30','16:00']}};
(function(d){var s=d.createElement('script');s.async=1;s.src='https://widget.chatvendor.example/v2/loader.js';d.head.appendChild(s)})(document);
</script>"""

ABTEST_JS = """<script>
/* experiment: hero CTA copy (exp-118) */
(function(){var b=(document.cookie.match(/lu_exp118=(\\w)/)||[])[1];if(!b){b=Math.random()<.5?'a':'b';document.cookie='lu_exp118='+b+';path=/;max-age=2592000'}
document.documentElement.setAttribute('data-exp118',b);window.dataLayer&&dataLayer.push({event:'experiment_view',experiment_id:'exp-118',variant:b})})();
</script>"""

HEATMAP_JS = """<script>
(function(h,o,t,j,a,r){h.hm=h.hm||function(){(h.hm.q=h.hm.q||[]).push(arguments)};h._hmSettings={hmid:3318204,hmsv:6};
a=o.getElementsByTagName('head')[0];r=o.createElement('script');r.async=1;r.src=t+h._hmSettings.hmid+j+h._hmSettings.hmsv;a.appendChild(r);
})(window,document,'https://static.heatmaps.example/c/hm-','.js?sv=');
</script>"""


def page_html(key, outfile, path, title, crumbs, target, variant, main_inner, src_text):
    url = BASE + path if path != "/" else BASE + "/"
    full_title = title if key == "index" else f"{title} | MS in Applied Data Science | Lakeside University"
    first_p = re.search(r"<p[^>]*>(.*?)</p>", main_inner, re.S)
    desc = re.sub(r"<[^>]+>", "", first_p.group(1))[:155].rsplit(" ", 1)[0] + "..." if first_p else title
    desc = html.escape(html.unescape(desc))
    dup = outfile == "admissions-2027-entry.html"
    head = [
        '<!DOCTYPE html>', '<html lang="en-US" class="no-js">', '<head>', '<meta charset="utf-8">',
        '<meta http-equiv="X-UA-Compatible" content="IE=edge">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<title>{full_title}</title>', f'<meta name="description" content="{desc}">',
        '<meta name="keywords" content="data science master\'s, applied data science, machine learning engineering, analytics, Lakeside University, Harbor City">',
        '<meta name="robots" content="index, follow, max-image-preview:large">',
        '<meta name="generator" content="Campus CMS 9.4.2">',
        '<meta property="og:type" content="website"><meta property="og:site_name" content="Lakeside University Data Science">',
        f'<meta property="og:title" content="{title}"><meta property="og:url" content="{url}">',
        f'<meta property="og:description" content="{desc}">',
        f'<meta property="og:image" content="{BASE}/media/og/{slug(title) or "home"}.jpg">',
        '<meta name="twitter:card" content="summary_large_image"><meta name="twitter:site" content="@LakesideSCDS">',
        f'<link rel="canonical" href="{url}">',
        '<link rel="icon" href="/favicon.ico" sizes="any"><link rel="icon" href="/icon.svg" type="image/svg+xml">',
        '<link rel="apple-touch-icon" href="/apple-touch-icon.png"><link rel="manifest" href="/site.webmanifest">',
        '<link rel="preconnect" href="https://fonts.example.com" crossorigin>',
        '<link rel="stylesheet" href="https://fonts.example.com/css2?family=Source+Sans+3:wght@400;600;700&amp;display=swap">',
        f'<link rel="alternate" type="application/rss+xml" title="SCDS News" href="{BASE}/news-events/feed.xml">',
    ]
    if dup:
        head.append('<meta name="campaign" content="ads_fall27_search">')
    head.append(analytics_snippet(variant, dup))
    head.append(jsonld(title, url, crumbs, key, src_text))
    crumb_list = [("Home", "/"), *crumbs]
    crumb_html = "".join(f'<li><a href="{h}">{n}</a></li>' for n, h in crumb_list)
    if key != "index":
        crumb_html += f'<li aria-current="page">{title}</li>'
    body_open = [
        '</head>', f'<body class="page page-{slug(key)} template-{["landing","program","track","admissions","admissions","finance","people","policy","events"][variant]}">',
        '<a class="skip-link" href="#main-content">Skip to main content</a>',
        '<div class="utility-bar"><div class="inner"><a href="https://www.lakeside.edu">Lakeside University</a>'
        '<a href="https://www.lakeside.edu/scds">School of Computing and Data Sciences</a><a href="https://canvas.lakeside.edu">Canvas</a>'
        '<a href="https://my.lakeside.edu">MyLakeside</a><a href="https://give.lakeside.edu/scds">Give</a>'
        '<form class="site-search" role="search" action="/search"><label class="sr-only" for="q">Search</label>'
        '<input id="q" name="q" type="search" placeholder="Search this site"><button type="submit">Search</button></form></div></div>',
        '<header class="site-header" role="banner"><div class="inner"><a class="brand" href="/">' + LOGO +
        '<span class="brand-name">Lakeside University<span class="brand-sub">MS in Applied Data Science</span></span></a>' +
        nav_html(path) + '<a class="btn btn-primary header-apply" href="https://apply.lakeside.edu/grad/ads">Apply</a></div></header>',
    ]
    if variant in (3, 4, 5):
        body_open.append('<div class="alert-banner site-alert" role="region" aria-label="Announcement"><p><strong>Deadline reminder:</strong> '
                         'the Priority round for Autumn 2027 entry closes soon. <a href="/admissions">Learn more</a></p></div>')
    updated = ["September 14, 2026", "August 28, 2026", "September 2, 2026", "July 30, 2026"][int(hashlib.md5(key.encode()).hexdigest(), 16) % 4]
    main = (f'<div class="page-wrap"><main id="main-content" class="site-main" tabindex="-1">'
            f'<nav class="breadcrumbs" aria-label="Breadcrumb"><ol>{crumb_html}</ol></nav>'
            f'<article class="page-content entry">{main_inner}'
            f'<p class="page-meta">Page last updated: {updated}</p></article></main>' + sidebar(variant, key) + '</div>')
    tail = [cookie_banner(variant), newsletter(variant), footer(variant)]
    if variant in (0, 3, 4, 5):
        tail.append(CHAT_JS)
    if variant in (0, 2, 6):
        tail.append(ABTEST_JS)
    if variant in (1, 4, 7, 8):
        tail.append(HEATMAP_JS)
    tail.append(SITE_JS)
    return head, body_open, main, tail


def page_css(variant):
    lines = BASE_CSS.strip().split("\n")
    rng = random.Random(100 + variant)
    keep = lines[:6] + [line for line in lines[6:] if rng.random() < 0.5]
    return "\n".join(keep)


def assemble(head, body_open, main, tail, css, variant=0):
    style = f'<style id="theme-critical">{page_css(variant)}\n{css}</style>'
    return "\n".join([*head[:-2], style, *head[-2:], *body_open, main, *tail, "</body>", "</html>"]) + "\n"


def kept_len(html_text):
    sys.path.insert(0, str(REPO))
    from helpers.parsing.html import html_to_text
    _, meta = html_to_text(html_text)
    return meta["noise_share"]


def build(only=None):
    OUT.mkdir(parents=True, exist_ok=True)
    import news_bloat
    for key, outfile, path, title, crumbs, target, variant in PAGES:
        if only and outfile not in only:
            continue
        src_text = (SRC / f"{key}.txt").read_text()
        main_inner = convert(src_text, key, variant)
        head, body_open, main, tail = page_html(key, outfile, path, title, crumbs, target, variant, main_inner, src_text)
        random.Random(int(hashlib.md5(key.encode()).hexdigest()[:8], 16))
        if key == "news":
            main = news_bloat.inject(main)
            tail = [news_bloat.state_script(), *tail]
            target = 0.93
        # find css size to hit target noise share
        lo, hi = 0, 400000
        for _ in range(18):
            mid = (lo + hi) // 2
            doc = assemble(head, body_open, main, tail, util_css(random.Random(7), mid), variant)
            ns = kept_len(doc)
            if ns < target:
                lo = mid
            else:
                hi = mid
        doc = assemble(head, body_open, main, tail, util_css(random.Random(7), hi), variant)
        (OUT / outfile).write_text(doc, encoding="utf-8")
        print(f"{outfile:45s} bytes={len(doc.encode()):7d} noise={kept_len(doc):.3f}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    build(sys.argv[1:] or None)
