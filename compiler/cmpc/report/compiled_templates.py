"""cmpc's report templates compiled by jinja2 3.1.6 (scripts/compile_templates.py).

Do not edit: change a template in cmpc/report/templates and run
`python scripts/compile_templates.py`. Each factory holds jinja2's code for one template, run by
cmpc.report.template_runtime instead of jinja2.runtime; report/precompiled.py uses it only while
DIGESTS and MODULES match the files, and renders with jinja2 otherwise.
"""
# ruff: noqa
# fmt: off
# mypy: ignore-errors

from cmpc.report.template_runtime import LoopContext, TemplateRuntimeError, Undefined, internalcode, missing

JINJA2 = '3.1.6'
DIGESTS = {
    'assumptions.md.j2': '82b588c46a1bd0cf253f537cfa92e8bff5c05e85d7941e676d0798e21eaecdeb',
    'claims.md.j2': 'cdcad78605d4031aa2edd795c8bb57c29531f5cc8f43808d06a8ce4cd3a66596',
    'cost.md.j2': 'cca5750b5cbc360780aa5cba71c2359a6698c0e096cb805d4e598c0ab28c8b88',
    'disclosure.md.j2': '11aaa65a994cc6631489706bc857b2ffe2421eec87e7f676054302249f2f5c6d',
    'fleet.md.j2': 'f33c73cd1779062acd7d6a757b605e2daca1ae9eb0edb8afea4400a5417a1e21',
    'headline.md.j2': 'fec06c15f8aecb71f849c037cac9087b93a80f31904af9ef2230e45ddd2e2843',
    'provenance.md.j2': '0a8a6ac6ea759e6ef0e48b2925dfd8d5df43b7df9f5c7daef8156f5b6ae24c58',
    'report.md.j2': '0a8502ba9813091eecf158baf94206851c64bde7060d27fce4c82e13cda2cc9c',
    'sensitivity.md.j2': '9c520ba159e6af5787d9116ca58ba4651fb5afa27844a27b3cef6d082d89d4d2',
    'uncertainty.md.j2': '4a01cb8338b51f6a871261bb2d9f74d32ac36215552e2c62a47d38757c4852c2',
}
MODULES = {
    'environment.py': '5df8292948db4a7ee128eb05fdfa6806e48cd13e2629f2e41b04c02f2787ec75',
    'text.py': '8463f8ef1fcd402f3d697fc3f7ceed6366acc8dbb085d58a657a8dcf69d51e7e',
    'template_filters.py': 'cebc7b17034cfce660af351439df0d274db334b01531530572e933374a7ae5f8',
}

def _assumptions_md_j2(environment):
    name = 'assumptions.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        pass
        yield '## Assumptions\n\nEvery price, utilization and power figure the comparison uses, with its basis, source and date.\n\n| System | Assumption | Value | Basis | Source | As of |\n|---|---|---|---|---|---|\n'
        for l_1_a in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'assumptions'):
            _loop_vars = {}
            pass
            yield '| '
            yield str(environment.finalize(environment.getattr(l_1_a, 'system')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_a, 'item')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_a, 'value')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_a, 'basis')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_a, 'source')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_a, 'date')))
            yield ' |\n'
        l_1_a = missing
        yield '\n'

    blocks = {}
    debug_info = '7=13&8=17'
    return root, blocks, debug_info


def _claims_md_j2(environment):
    name = 'claims.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_cap = resolve('cap')
        try:
            t_1 = environment.filters['mdjoin']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'mdjoin' found.")
        pass
        yield '## Claims\n\n'
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'claims'):
            pass
            for l_1_c in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'claims'):
                _loop_vars = {}
                pass
                yield '### '
                yield str(environment.finalize(environment.getattr(l_1_c, 'name')))
                yield ': '
                yield str(environment.finalize(environment.getattr(l_1_c, 'value')))
                yield '\n\n'
                if environment.getattr(l_1_c, 'about'):
                    pass
                    yield str(environment.finalize(environment.getattr(l_1_c, 'about')))
                    yield ' ('
                    yield str(environment.finalize(environment.getattr(l_1_c, 'facts')))
                    yield ').\n'
                else:
                    pass
                    yield str(environment.finalize(environment.getattr(l_1_c, 'facts')))
                    yield '.\n'
                yield '\n'
                if environment.getattr(l_1_c, 'derived'):
                    pass
                    yield 'It supports:\n\n'
                    for l_2_d in environment.getattr(l_1_c, 'derived'):
                        _loop_vars = {}
                        pass
                        yield '- '
                        yield str(environment.finalize(l_2_d))
                        yield '\n'
                    l_2_d = missing
                    yield '\n'
                if environment.getattr(l_1_c, 'cannot'):
                    pass
                    yield 'It cannot support:\n\n'
                    for l_2_d in environment.getattr(l_1_c, 'cannot'):
                        _loop_vars = {}
                        pass
                        yield '- '
                        yield str(environment.finalize(l_2_d))
                        yield '\n'
                    l_2_d = missing
                    yield '\n'
                if environment.getattr(l_1_c, 'compared'):
                    pass
                    yield str(environment.finalize(environment.getattr(l_1_c, 'compared')))
                    yield '\n\n'
                if environment.getattr(l_1_c, 'notes'):
                    pass
                    yield 'Notes: '
                    yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'notes'), '; ')))
                    yield '.\n\n'
            l_1_c = missing
            if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'claim_combinations'):
                pass
                yield '### What the claims imply together\n\n'
                for l_1_c in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'claim_combinations'):
                    _loop_vars = {}
                    pass
                    yield '- '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'quantity')))
                    yield ' from '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'claims')))
                    yield ' = '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'formula')))
                    yield ': '
                    if environment.getattr(l_1_c, 'value'):
                        pass
                        yield str(environment.finalize(environment.getattr(l_1_c, 'value')))
                    else:
                        pass
                        yield 'not computable'
                        if environment.getattr(l_1_c, 'missing'):
                            pass
                            yield ', needs '
                            yield str(environment.finalize(environment.getattr(l_1_c, 'missing')))
                    yield '.'
                    if environment.getattr(l_1_c, 'note'):
                        pass
                        yield ' Note: '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'note')))
                        yield '.'
                    yield '\n'
                l_1_c = missing
                yield '\n'
        else:
            pass
            yield 'The spec states no free-standing claims.\n\n'
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'capacity'):
            pass
            l_0_cap = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'capacity')
            context.vars['cap'] = l_0_cap
            context.exported_vars.add('cap')
            yield '## Capacity\n\nWeights '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'weights')))
            yield '; KV cache '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'kv_per_token')))
            yield ' per token, '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'kv')))
            yield ' at a context of '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'context')))
            yield ' tokens × concurrency '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'concurrency')))
            yield '; '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'needed')))
            yield ' in total, with '
            yield str(environment.finalize(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'reserve')))
            yield ' of memory held back.\n\n| System | Usable memory per card | Cards needed | Cards in the system |\n|---|---|---|---|\n'
            for l_1_row in environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'rows'):
                _loop_vars = {}
                pass
                yield '| '
                yield str(environment.finalize(environment.getattr(l_1_row, 'system')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_row, 'usable')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_row, 'needed')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_row, 'declared')))
                yield ' |\n'
            l_1_row = missing
            l_1_loop = missing
            for l_1_system, l_1_loop in LoopContext(environment.getattr((undefined(name='cap') if l_0_cap is missing else l_0_cap), 'not_fitting'), undefined):
                _loop_vars = {}
                pass
                if environment.getattr(l_1_loop, 'first'):
                    pass
                    yield '\n'
                yield '**The declared load does not fit on '
                yield str(environment.finalize(l_1_system))
                yield ':** it needs more cards than the system has, so the system as described cannot serve this context at this concurrency.\n'
            l_1_loop = l_1_system = missing
            yield '\n'

    blocks = {}
    debug_info = '3=20&4=22&5=26&7=30&8=32&10=38&13=41&16=44&17=48&21=52&24=55&25=59&29=63&30=65&33=67&34=70&38=73&41=76&42=80&51=108&52=110&55=114&59=128&60=132&62=142&63=145&66=149'
    return root, blocks, debug_info


def _cost_md_j2(environment):
    name = 'cost.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        try:
            t_1 = environment.filters['length']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'length' found.")
        pass
        yield '## Cost\n\nCost per million '
        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'cost'), 'basis')))
        yield ' tokens = price per GPU-hour / (throughput per GPU × 3600 × utilization) × 10^6, at utilization '
        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'cost'), 'utilization')))
        yield '.[^price]\n\n| System | Price per GPU-hour | Throughput per GPU (tok/s) | Cost per million tokens | Arithmetic |\n|---|---|---|---|---|\n'
        for l_1_row in environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'cost'), 'rows'):
            _loop_vars = {}
            pass
            yield '| '
            yield str(environment.finalize(environment.getattr(l_1_row, 'system')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_row, 'price')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_row, 'throughput')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_row, 'per_million')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_row, 'arithmetic')))
            yield ' |\n'
        l_1_row = missing
        yield '\n'
        for l_1_step in environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'cost'), 'steps'):
            _loop_vars = {}
            pass
            yield 'From the throughput lead to the cost change, '
            yield str(environment.finalize(environment.getattr(l_1_step, 'system')))
            yield ' against '
            yield str(environment.finalize(environment.getattr(l_1_step, 'baseline')))
            yield ':\n\n'
            for l_2_line in environment.getattr(l_1_step, 'lines'):
                _loop_vars = {}
                pass
                yield '- '
                yield str(environment.finalize(l_2_line))
                yield '\n'
            l_2_line = missing
            yield '\n'
        l_1_step = missing
        if (t_1(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'cost'), 'scenarios')) > 1):
            pass
            yield 'Cost per token relative to the baseline, by price scenario:\n\n| Scenario |'
            for l_1_s in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
                _loop_vars = {}
                pass
                yield ' '
                yield str(environment.finalize(environment.getattr(l_1_s, 'label')))
                yield ' |'
            l_1_s = missing
            yield '\n|---|'
            for l_1_s in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
                _loop_vars = {}
                pass
                yield '---|'
            l_1_s = missing
            yield '\n'
            for l_1_row in environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'cost'), 'scenarios'):
                _loop_vars = {}
                pass
                yield '| '
                yield str(environment.finalize(environment.getattr(l_1_row, 'scenario')))
                yield ' |'
                for l_2_s in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
                    _loop_vars = {}
                    pass
                    yield ' '
                    yield str(environment.finalize(environment.getitem(environment.getattr(l_1_row, 'shown'), environment.getattr(l_2_s, 'name'))))
                    yield ' |'
                l_2_s = missing
                yield '\n'
            l_1_row = missing
            yield '\n'

    blocks = {}
    debug_info = '3=19&7=23&8=27&11=39&12=43&14=47&15=51&19=56&22=59&24=67&26=73&27=77'
    return root, blocks, debug_info


def _disclosure_md_j2(environment):
    name = 'disclosure.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_d = missing
        try:
            t_1 = environment.filters['int']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'int' found.")
        try:
            t_2 = environment.filters['length']
        except KeyError:
            @internalcode
            def t_2(*unused):
                raise TemplateRuntimeError("No filter named 'length' found.")
        pass
        l_0_d = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'disclosure')
        context.vars['d'] = l_0_d
        context.exported_vars.add('d')
        if (undefined(name='d') if l_0_d is missing else l_0_d):
            pass
            yield '## Disclosure\n\n**Verdict: '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'verdict')))
            yield '.** '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'score')))
            yield ' of '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'total')))
            yield ' checklist items are disclosed, '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'five_answered')))
            yield ' of them among the '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'five_total')))
            yield ' key questions (marked ★). A comparison is "comparable" when at least half the items, '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'half')))
            yield ' of '
            yield str(environment.finalize(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'total')))
            yield ', are disclosed, and a "directional signal only" otherwise'
            if environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'comparable'):
                pass
                yield ': this one reaches the threshold'
            else:
                pass
                yield ': this one is '
                yield str(environment.finalize((t_1(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'half')) - t_1(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'score')))))
                yield ' short'
            yield '.\n\n'
            if environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'rows'):
                pass
                yield '| Item | Question | Answer |\n|---|---|---|\n'
                for l_1_i in environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'rows'):
                    _loop_vars = {}
                    pass
                    yield '| '
                    yield str(environment.finalize(environment.getattr(l_1_i, 'key')))
                    if environment.getattr(l_1_i, 'five'):
                        pass
                        yield ' ★'
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_i, 'question')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_i, 'status')))
                    yield ' |\n'
                l_1_i = missing
                yield '\n'
            if environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'missing'):
                pass
                yield 'Not disclosed ('
                yield str(environment.finalize(t_2(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'missing'))))
                yield '), so a reader should ask:\n\n'
                for l_1_i in environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'missing'):
                    _loop_vars = {}
                    pass
                    yield '- '
                    if environment.getattr(l_1_i, 'five'):
                        pass
                        yield '★ '
                    yield str(environment.finalize(environment.getattr(l_1_i, 'question')))
                    yield ' ('
                    yield str(environment.finalize(environment.getattr(l_1_i, 'key')))
                    yield ')\n'
                l_1_i = missing
                yield '\n'

    blocks = {}
    debug_info = '1=25&2=28&5=31&7=54&10=57&11=61&15=72&16=75&18=77&19=81'
    return root, blocks, debug_info


def _fleet_md_j2(environment):
    name = 'fleet.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_fl = missing
        try:
            t_1 = environment.filters['mdjoin']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'mdjoin' found.")
        pass
        l_0_fl = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'fleet')
        context.vars['fl'] = l_0_fl
        context.exported_vars.add('fl')
        if (undefined(name='fl') if l_0_fl is missing else l_0_fl):
            pass
            yield '## Fleet planning\n\n'
            if environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap'):
                pass
                if environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'caps'):
                    pass
                    yield 'The '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_what')))
                    yield ' at which a million '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'basis')))
                    yield ' tokens cost at most '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap')))
                    yield ' (utilization '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'utilization')))
                    yield '), read along each frontier[^fleet]'
                    if environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_intervals'):
                        pass
                        yield ', with its '
                        yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'level')))
                        yield ' interval[^ci]'
                    yield '.\n\n| System | Price | '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_column')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'level')))
                    yield ' interval | Where | Throughput (tok/s/gpu) |\n|---|---|---|---|---|---|\n'
                    for l_1_c in environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'caps'):
                        _loop_vars = {}
                        pass
                        yield '| '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'system')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'price')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'interactivity')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'interval')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'where')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_c, 'throughput')))
                        yield ' |\n'
                    l_1_c = missing
                    yield '\n'
                for l_1_n in environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_notes'):
                    _loop_vars = {}
                    pass
                    yield 'No '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_what')))
                    yield ' within '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap')))
                    yield ' per million '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'basis')))
                    yield ' tokens for '
                    yield str(environment.finalize(l_1_n))
                    yield '.[^fleet]\n\n'
                l_1_n = missing
                if environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_ratios'):
                    pass
                    yield 'Ratio of the '
                    yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_ratio_what')))
                    yield ': '
                    yield str(environment.finalize(t_1(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'cap_ratios'), '; ')))
                    yield '.\n\n'
            if environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'users_read'):
                pass
                yield 'Concurrent users a megawatt serves at the target of '
                yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'target')))
                yield ' tok/s/user: output tokens/s per GPU there over '
                yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'target')))
                yield ' tok/s/user (streams per GPU), times the GPUs a megawatt powers[^fleet].\n\n| System | Output (tok/s/gpu) | Streams per GPU | Power per GPU | GPUs per MW | Users per MW | '
                yield str(environment.finalize(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'level')))
                yield ' interval |\n|---|---|---|---|---|---|---|\n'
                for l_1_u in environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'users'):
                    _loop_vars = {}
                    pass
                    if environment.getattr(l_1_u, 'missing'):
                        pass
                        yield '| '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'system')))
                        yield ' | — | — | — | — | none: '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'missing')))
                        yield ' | — |\n'
                    else:
                        pass
                        yield '| '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'system')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'output')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'streams')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'power')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'gpus')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'users')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_u, 'interval')))
                        yield ' |\n'
                l_1_u = missing
                yield '\n'
            else:
                pass
                for l_1_u in environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'users'):
                    _loop_vars = {}
                    pass
                    yield 'No concurrent users per megawatt for '
                    yield str(environment.finalize(environment.getattr(l_1_u, 'system')))
                    yield ': '
                    yield str(environment.finalize(environment.getattr(l_1_u, 'missing')))
                    yield '.[^fleet]\n\n'
                l_1_u = missing
            if environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'users_ratios'):
                pass
                yield 'Ratio of users per MW: '
                yield str(environment.finalize(t_1(environment.getattr((undefined(name='fl') if l_0_fl is missing else l_0_fl), 'users_ratios'), '; ')))
                yield '.\n\n'

    blocks = {}
    debug_info = '1=19&2=22&5=25&6=27&7=30&9=44&11=48&12=52&16=66&17=70&20=79&21=82&25=86&26=89&28=93&30=95&31=98&32=101&34=108&39=126&40=130&44=135&45=138'
    return root, blocks, debug_info


def _headline_md_j2(environment):
    name = 'headline.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_h = missing
        try:
            t_1 = environment.filters['mdjoin']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'mdjoin' found.")
        pass
        l_0_h = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'headline')
        context.vars['h'] = l_0_h
        context.exported_vars.add('h')
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'available'):
            pass
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'direction'):
                pass
                yield '**'
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'system')))
                yield ' delivers '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'qualifier')))
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'change')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'direction')))
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'interval')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'tokens')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'per')))
                yield '[^tokens],[^norm] than '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'baseline')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'target')))
                yield '[^latency]'
            else:
                pass
                yield '**'
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'system')))
                yield ' delivers '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'same')))
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'interval')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'tokens')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'per')))
                yield '[^tokens],[^norm] as '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'baseline')))
                yield ' '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'target')))
                yield '[^latency]'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'price_normalized'):
                pass
                if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'):
                    pass
                    yield ', which is '
                    if environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'direction'):
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'qualifier')))
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'change')))
                        yield ' '
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'direction')))
                    else:
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'same')))
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'interval')))
                    yield ' cost per token at the declared prices ('
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'prices')))
                    yield ' per GPU-hour)[^price]'
                if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'):
                    pass
                    yield '; per GPU, at equal prices, it would be '
                    if environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'direction'):
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'qualifier')))
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'change')))
                        yield ' '
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'direction')))
                    else:
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'same')))
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'interval')))
                    yield ' cost per token[^price]'
            else:
                pass
                if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'):
                    pass
                    yield ', which at equal prices'
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'basis')))
                    yield ' is '
                    if environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'direction'):
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'qualifier')))
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'change')))
                        yield ' '
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'direction')))
                    else:
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'same')))
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'equal'), 'interval')))
                    yield ' cost per token[^price]'
                if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'):
                    pass
                    yield '; at the declared prices ('
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'prices')))
                    yield ' per GPU-hour) it is '
                    if environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'direction'):
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'qualifier')))
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'change')))
                        yield ' '
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'direction')))
                    else:
                        pass
                        yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'same')))
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'declared'), 'interval')))
                    yield ' cost per token[^price]'
            yield '.** Data: '
            yield str(environment.finalize(t_1(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'sources'), '; ')))
            yield '.[^source]\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'noise'):
                pass
                yield '\n'
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'noise')))
                yield '\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'cost_unavailable'):
                pass
                yield '\nThe cost consequence at the declared prices is not computable: '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'cost_unavailable')))
                yield '.\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'bound_caution'):
                pass
                yield '\nCaution: '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'bound_caution')))
                yield '.\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'goodput_caution'):
                pass
                yield '\nCaution: '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'goodput_caution')))
                yield '.\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'pue_caution'):
                pass
                yield '\nCaution: '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'pue_caution')))
                yield '.[^norm]\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'load_caution'):
                pass
                yield '\nCaution: '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'load_caution')))
                yield '.\n'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'hit_rate_gap'):
                pass
                yield '\nCaution: '
                yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'hit_rate_gap')))
                yield '[^tokens]\n'
        elif environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
            pass
            yield '**No headline ratio '
            yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'target')))
            yield '[^latency]: '
            yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'reason')))
            yield '.** Data: see the sources below.[^source]\n'
        else:
            pass
            yield '**No headline ratio: '
            yield str(environment.finalize(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'reason')))
            yield '.**\n'

    blocks = {}
    debug_info = '1=19&2=22&3=24&4=27&6=46&8=59&9=61&11=77&14=93&16=109&18=126&19=128&21=131&23=133&25=136&27=138&29=141&31=143&33=146&35=148&37=151&39=153&41=156&43=158&45=161&47=163&48=166&50=173'
    return root, blocks, debug_info


def _provenance_md_j2(environment):
    name = 'provenance.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_p = missing
        pass
        l_0_p = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'provenance')
        context.vars['p'] = l_0_p
        context.exported_vars.add('p')
        yield '## Data provenance\n\n- Spec: '
        yield str(environment.finalize(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'spec_file')))
        yield ', SHA-256 '
        yield str(environment.finalize(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'spec_sha256')))
        yield '\n- cmpc '
        yield str(environment.finalize(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'cmpc_version')))
        yield ', results model version '
        yield str(environment.finalize(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'results_version')))
        yield '\n'
        if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'overrides'):
            pass
            yield '- Overrides (`--set`): '
            l_1_loop = missing
            for l_1_o, l_1_loop in LoopContext(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'overrides'), undefined):
                _loop_vars = {}
                pass
                yield str(environment.finalize(l_1_o))
                if (not environment.getattr(l_1_loop, 'last')):
                    pass
                    yield '; '
            l_1_loop = l_1_o = missing
            yield '\n'
        else:
            pass
            yield '- Overrides (`--set`): none\n'
        if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'warnings'):
            pass
            yield '- Warnings of this build (`cmpc explain CODE` says more):\n'
            for l_1_w in environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'warnings'):
                _loop_vars = {}
                pass
                yield '  - '
                yield str(environment.finalize(l_1_w))
                yield '\n'
            l_1_w = missing
        yield '\n'
        if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'inputs'):
            pass
            yield '| Input file | System | Format | Reader | Runs | SHA-256 |\n|---|---|---|---|---|---|\n'
            for l_1_i in environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'inputs'):
                _loop_vars = {}
                pass
                yield '| '
                yield str(environment.finalize(environment.getattr(l_1_i, 'path')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_i, 'system')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_i, 'format')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_i, 'reader')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_i, 'runs')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(l_1_i, 'sha256')))
                yield ' |\n'
            l_1_i = missing
        else:
            pass
            yield 'No input files: every figure is reported by a source below, not read from benchmark outputs.\n'
        yield '\n| Source | Title | Role | Dates | Status |\n|---|---|---|---|---|\n'
        for l_1_s in environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'sources'):
            _loop_vars = {}
            pass
            yield '| '
            yield str(environment.finalize(environment.getattr(l_1_s, 'name')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_s, 'title')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_s, 'role')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_s, 'dates')))
            yield ' | '
            yield str(environment.finalize(environment.getattr(l_1_s, 'status')))
            yield ' |\n'
        l_1_s = missing
        yield '\n'

    blocks = {}
    debug_info = '1=13&4=17&5=21&6=25&7=29&12=41&14=44&15=48&19=52&22=55&23=59&31=76&32=80'
    return root, blocks, debug_info


def _report_md_j2(environment):
    name = 'report.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_sbs = resolve('sbs')
        try:
            t_1 = environment.filters['length']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'length' found.")
        pass
        yield '# '
        yield str(environment.finalize(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'title')))
        yield '\n\n'
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'synthetic'):
            pass
            yield '> **SYNTHETIC DATA.** This report is built from synthetic data: it shows the method and says nothing about the hardware compared.[^synthetic]\n\n'
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'question'):
            pass
            yield '**Question.** '
            yield str(environment.finalize(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'question')))
            yield '\n\n'
        template = environment.get_template('headline.md.j2', 'report.md.j2')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
        yield '\n'
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'disclosure'):
            pass
            yield '**Disclosure:** '
            yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'disclosure'), 'score')))
            yield ' of '
            yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'disclosure'), 'total')))
            yield ' checklist items disclosed; verdict: **'
            yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'disclosure'), 'verdict')))
            yield '** (see [Disclosure](#disclosure)).\n\n'
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
            pass
            yield '## Results\n\n'
            l_0_sbs = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'side_by_side')
            context.vars['sbs'] = l_0_sbs
            context.exported_vars.add('sbs')
            if environment.getattr((undefined(name='sbs') if l_0_sbs is missing else l_0_sbs), 'shared'):
                pass
                yield 'The systems side by side: the '
                yield str(environment.finalize(environment.getattr((undefined(name='sbs') if l_0_sbs is missing else l_0_sbs), 'differ')))
                yield ' rows that differ first, then the '
                yield str(environment.finalize(environment.getattr((undefined(name='sbs') if l_0_sbs is missing else l_0_sbs), 'shared')))
                yield ' they share.\n'
            yield '\n| Quantity |'
            for l_1_c in environment.getattr((undefined(name='sbs') if l_0_sbs is missing else l_0_sbs), 'columns'):
                _loop_vars = {}
                pass
                yield ' '
                yield str(environment.finalize(l_1_c))
                yield ' |'
            l_1_c = missing
            yield '\n|---|'
            for l_1_c in environment.getattr((undefined(name='sbs') if l_0_sbs is missing else l_0_sbs), 'columns'):
                _loop_vars = {}
                pass
                yield '---|'
            l_1_c = missing
            yield '\n'
            for l_1_row in environment.getattr((undefined(name='sbs') if l_0_sbs is missing else l_0_sbs), 'rows'):
                _loop_vars = {}
                pass
                yield '| '
                yield str(environment.finalize(environment.getattr(l_1_row, 'label')))
                yield ' |'
                for l_2_v in environment.getattr(l_1_row, 'cells'):
                    _loop_vars = {}
                    pass
                    yield ' '
                    yield str(environment.finalize(l_2_v))
                    yield ' |'
                l_2_v = missing
                yield '\n'
            l_1_row = missing
            yield '\n'
            for l_1_s in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
                _loop_vars = {}
                pass
                if environment.getattr(l_1_s, 'points'):
                    pass
                    yield 'Measured points of '
                    yield str(environment.finalize(environment.getattr(l_1_s, 'label')))
                    yield ' ('
                    yield str(environment.finalize(t_1(environment.getattr(l_1_s, 'points'))))
                    yield '; frontier points marked ✓):\n\n| '
                    yield str(environment.finalize(environment.getattr(l_1_s, 'load_header')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_s, 'axis_header')))
                    yield ' | Throughput (tok/s/gpu) | Frontier | Run |\n|---|---|---|---|---|\n'
                    for l_2_p in environment.getattr(l_1_s, 'points'):
                        _loop_vars = {}
                        pass
                        yield '| '
                        yield str(environment.finalize(environment.getattr(l_2_p, 'concurrency')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_2_p, 'at')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_2_p, 'throughput')))
                        yield ' | '
                        yield str(environment.finalize(('✓' if environment.getattr(l_2_p, 'frontier') else '')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_2_p, 'label')))
                        yield ' |\n'
                    l_2_p = missing
                    yield '\n'
            l_1_s = missing
            if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'):
                pass
                yield '### At equal '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'axis_word')))
                yield '\n\nThroughput per GPU of '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'system')))
                yield ' and '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'baseline')))
                yield ' read at the same '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'axis_words')))
                yield ' ('
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'method')))
                yield ' read on each frontier[^latency])'
                if environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'target_row'):
                    pass
                    yield '; the target row is in bold'
                    if environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'reverses'):
                        pass
                        yield ', and **the lead reverses within this range**'
                elif environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'reverses'):
                    pass
                    yield '; **the lead reverses within this range**'
                yield '.\n\n| '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'axis')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'system')))
                yield ' | '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'baseline')))
                yield ' | Ratio |\n|---|---|---|---|\n'
                for l_1_row in environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'iso'), 'rows'):
                    _loop_vars = {}
                    pass
                    if environment.getattr(l_1_row, 'target'):
                        pass
                        yield '| **'
                        yield str(environment.finalize(environment.getattr(l_1_row, 'interactivity')))
                        yield '** | **'
                        yield str(environment.finalize(environment.getattr(l_1_row, 'system')))
                        yield '** | **'
                        yield str(environment.finalize(environment.getattr(l_1_row, 'baseline')))
                        yield '** | **'
                        yield str(environment.finalize(environment.getattr(l_1_row, 'ratio')))
                        yield '** |\n'
                    else:
                        pass
                        yield '| '
                        yield str(environment.finalize(environment.getattr(l_1_row, 'interactivity')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_row, 'system')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_row, 'baseline')))
                        yield ' | '
                        yield str(environment.finalize(environment.getattr(l_1_row, 'ratio')))
                        if environment.getattr(l_1_row, 'reversed'):
                            pass
                            yield ' (reversed)'
                        yield ' |\n'
                l_1_row = missing
                yield '\n'
            if (t_1(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'comparisons')) > 1):
                pass
                yield '### All comparisons\n\n| System | Baseline | Throughput ratio | Change | Cost ratio, equal prices | Cost ratio, declared prices | Throughput winner | Cost winner |\n|---|---|---|---|---|---|---|---|\n'
                for l_1_c in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'comparisons'):
                    _loop_vars = {}
                    pass
                    yield '| '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'system')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'baseline')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'throughput_ratio')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'throughput_change')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'cost_equal')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'cost_declared')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'winner')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'cost_winner')))
                    yield ' |\n'
                l_1_c = missing
                yield '\n'
            yield '## Figure\n\n'
            t_2 = 1
            for l_1_f in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'figures'):
                l_1_results = resolve('results')
                _loop_vars = {}
                pass
                yield '!['
                yield str(environment.finalize(environment.getattr(l_1_f, 'alt')))
                yield ']('
                yield str(environment.finalize(environment.getattr(l_1_f, 'path')))
                yield ')\n\n'
                if (environment.getattr(l_1_f, 'kind') == 'frontier'):
                    pass
                    yield '*Throughput '
                    yield str(environment.finalize(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'per')))
                    yield ' against '
                    yield str(environment.finalize(environment.getattr(l_1_f, 'axis')))
                    yield '. '
                    yield str(environment.finalize(environment.getattr(l_1_f, 'caption')))
                    yield ' Every plotted value is in `figures.csv`.*\n'
                elif (environment.getattr(l_1_f, 'kind') == 'latency'):
                    pass
                    if environment.getattr(environment.getattr(environment.getattr((undefined(name='results') if l_1_results is missing else l_1_results), 'conditions'), 'latency'), 'target'):
                        pass
                        yield "*Per-request latency of each system's run nearest the target: the share of requests (y) at or below each TTFT and TPOT (x); dots: the median and P90; dashed black line: the target; grey: the SLOs, if any[^latency]. Every plotted value is in `figures.csv`.*\n"
                    else:
                        pass
                        yield "*Per-request latency of each system's run (the lowest-latency one when there are several; no target is declared): the share of requests (y) at or below each TTFT and TPOT (x); dots: the median and P90; grey lines: the SLOs, if any[^latency]. Every plotted value is in `figures.csv`.*\n"
                elif (environment.getattr(l_1_f, 'kind') == 'runs'):
                    pass
                    yield '*Throughput '
                    yield str(environment.finalize(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'per')))
                    yield " at each system's one measured run, with its load and "
                    yield str(environment.finalize(environment.getattr(l_1_f, 'axis')))
                    yield ' under the bar: one run per system draws no frontier, so none is read[^latency]. Every plotted value is in `figures.csv`.*\n'
                else:
                    pass
                    yield '*Reported figures only, so no frontier can be drawn. Left: throughput '
                    yield str(environment.finalize(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'per')))
                    yield ' relative to the baseline[^source]; right: cost per token relative to the baseline at equal prices and under each declared price scenario[^price]. Every plotted value is in `figures.csv`.*\n'
                yield '\n'
                t_2 = 0
            l_1_f = l_1_results = missing
            if t_2:
                pass
                yield 'No figure: the spec declares no data to plot.\n\n'
            template = environment.get_template('cost.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
            template = environment.get_template('assumptions.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
            template = environment.get_template('sensitivity.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
            template = environment.get_template('uncertainty.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
            template = environment.get_template('fleet.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
        if (not environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems')):
            pass
            template = environment.get_template('claims.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
        template = environment.get_template('disclosure.md.j2', 'report.md.j2')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
        if environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'systems'):
            pass
            template = environment.get_template('claims.md.j2', 'report.md.j2')
            gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
            try:
                for event in gen:
                    yield event
            finally: gen.close()
        template = environment.get_template('provenance.md.j2', 'report.md.j2')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'sbs': l_0_sbs}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
        for (l_1_key, l_1_text) in environment.call(context, environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'footnotes'), 'items')):
            _loop_vars = {}
            pass
            yield '[^'
            yield str(environment.finalize(l_1_key))
            yield ']: '
            yield str(environment.finalize(l_1_text))
            yield '\n'
        l_1_key = l_1_text = missing

    blocks = {}
    debug_info = '2=20&4=22&8=25&9=28&12=30&14=37&15=40&18=46&21=49&22=52&23=55&26=60&28=68&30=74&31=78&35=90&36=93&37=96&39=100&41=104&42=108&47=121&48=124&50=126&52=144&54=150&55=153&56=156&58=167&63=180&68=183&69=187&75=207&76=212&78=216&79=219&80=225&81=227&86=233&87=236&89=243&96=251&97=257&98=263&99=269&100=275&102=281&103=283&105=289&106=295&107=297&109=303&110=309&111=313'
    return root, blocks, debug_info


def _sensitivity_md_j2(environment):
    name = 'sensitivity.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_sens = missing
        pass
        l_0_sens = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'sensitivity')
        context.vars['sens'] = l_0_sens
        context.exported_vars.add('sens')
        if (undefined(name='sens') if l_0_sens is missing else l_0_sens):
            pass
            yield '## Sensitivity\n\n'
            if environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'declared'):
                pass
                yield 'The alternatives the spec declares. Ratios are '
                yield str(environment.finalize((environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'headline'), 'system') or 'the system')))
                yield ' over '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'headline'), 'baseline')))
                yield '; a flipped winner is in bold; a ratio within '
                yield str(environment.finalize(environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'tie_band')))
                yield ' of 1 is a tie, never a flip'
                if environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'intervals'), 'measured'):
                    pass
                    yield ', and a ratio whose '
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'intervals'), 'level')))
                    yield ' interval holds 1 is within measurement noise, never a flip[^ci]'
                yield '.\n'
            else:
                pass
                yield 'The spec declares no alternatives, so the default set is shown (token accounting, statistic, utilization). Ratios are '
                yield str(environment.finalize((environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'headline'), 'system') or 'the system')))
                yield ' over '
                yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'headline'), 'baseline')))
                yield '; a flipped winner is in bold; a ratio within '
                yield str(environment.finalize(environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'tie_band')))
                yield ' of 1 is a tie, never a flip'
                if environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'intervals'), 'measured'):
                    pass
                    yield ', and a ratio whose '
                    yield str(environment.finalize(environment.getattr(environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'intervals'), 'level')))
                    yield ' interval holds 1 is within measurement noise, never a flip[^ci]'
                yield '.\n'
            yield '\n| Parameter | Alternative | Throughput ratio | Cost ratio | Throughput winner | Cost winner |\n|---|---|---|---|---|---|\n'
            for l_1_row in environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'rows'):
                _loop_vars = {}
                pass
                if environment.getattr(l_1_row, 'available'):
                    pass
                    yield '| '
                    yield str(environment.finalize(environment.getattr(l_1_row, 'parameter')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_row, 'alternative')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_row, 'throughput_ratio')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_row, 'cost_ratio')))
                    yield ' | '
                    if environment.getattr(l_1_row, 'flips'):
                        pass
                        yield '**'
                        yield str(environment.finalize(environment.getattr(l_1_row, 'winner')))
                        yield ' (flips)**'
                    else:
                        pass
                        yield str(environment.finalize(environment.getattr(l_1_row, 'winner')))
                        if environment.getattr(l_1_row, 'noise'):
                            pass
                            yield ' (within noise)'
                    yield ' | '
                    if environment.getattr(l_1_row, 'cost_flips'):
                        pass
                        yield '**'
                        yield str(environment.finalize(environment.getattr(l_1_row, 'cost_winner')))
                        yield ' (flips)**'
                    else:
                        pass
                        yield str(environment.finalize(environment.getattr(l_1_row, 'cost_winner')))
                        if environment.getattr(l_1_row, 'cost_noise'):
                            pass
                            yield ' (within noise)'
                    yield ' |\n'
                else:
                    pass
                    yield '| '
                    yield str(environment.finalize(environment.getattr(l_1_row, 'parameter')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_row, 'alternative')))
                    yield ' | n/a | n/a | not available: '
                    yield str(environment.finalize((environment.getattr(l_1_row, 'reason') or 'not computable from the data')))
                    yield ' | |\n'
            l_1_row = missing
            yield '\n'
            if environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'folded'):
                pass
                yield str(environment.finalize(environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'folded')))
                yield '\n\n'
            if environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'utilization_note'):
                pass
                yield str(environment.finalize(environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'utilization_note')))
                yield '\n\n'
            yield str(environment.finalize(environment.getattr((undefined(name='sens') if l_0_sens is missing else l_0_sens), 'summary')))
            yield '\n\n'

    blocks = {}
    debug_info = '1=13&2=16&5=19&6=22&8=37&13=50&14=53&15=56&17=91&21=99&22=101&25=103&26=105&29=107'
    return root, blocks, debug_info


def _uncertainty_md_j2(environment):
    name = 'uncertainty.md.j2'

    def root(context, missing=missing, environment=environment):
        resolve = context.resolve_or_missing
        undefined = environment.undefined
        concat = environment.concat
        cond_expr_undefined = Undefined
        if 0: yield None
        l_0_report = resolve('report')
        l_0_iv = missing
        try:
            t_1 = environment.filters['mdjoin']
        except KeyError:
            @internalcode
            def t_1(*unused):
                raise TemplateRuntimeError("No filter named 'mdjoin' found.")
        pass
        l_0_iv = environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'intervals')
        context.vars['iv'] = l_0_iv
        context.exported_vars.add('iv')
        if (environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'measured') or environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity')):
            pass
            yield '## How sure\n\n'
            if environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'measured'):
                pass
                if environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'target'):
                    pass
                    yield "Each system's throughput per GPU at the target with its "
                    yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'level')))
                    yield ' interval[^ci]; "reached" is the share of replicates whose frontier reaches the target'
                else:
                    pass
                    yield "Each system's highest throughput per GPU measured (no latency target is declared) with its "
                    yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'level')))
                    yield ' interval[^ci]; "reached" is the share of replicates whose frontier could be read'
                yield '; run-to-run variation is measured only where a load has repetitions.\n\n| System | Read (tok/s/gpu) | '
                yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'level')))
                yield ' interval | Reached | Run-to-run |\n|---|---|---|---|---|\n'
                for l_1_r in environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'rows'):
                    _loop_vars = {}
                    pass
                    yield '| '
                    yield str(environment.finalize(environment.getattr(l_1_r, 'system')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_r, 'read')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_r, 'interval')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_r, 'reachable')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_r, 'run_to_run')))
                    if environment.getattr(l_1_r, 'repetitions'):
                        pass
                        yield ': '
                        yield str(environment.finalize(t_1(environment.getattr(l_1_r, 'repetitions'), '; ')))
                    yield ' |\n'
                l_1_r = missing
                yield '\n'
            if environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity'):
                pass
                yield '### Capacity at the percentile SLOs\n\nThe highest load at which every limit holds ('
                yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity_limits')))
                yield '), found between the two runs that bracket it (each limited statistic linear in load between them; never beyond the measured range), and the throughput per GPU there.'
                if environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity_ratio'):
                    pass
                    yield ' Ratio at capacity: '
                    yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity_ratio')))
                    if environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity_ratio_ci'):
                        pass
                        yield ' ('
                        yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'level')))
                        yield ' CI '
                        yield str(environment.finalize(environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity_ratio_ci')))
                        yield ')'
                    yield '.'
                yield '\n\n| System | Capacity | Load interval | Throughput (tok/s/gpu) | Throughput interval | Cost per M tokens |\n|---|---|---|---|---|---|\n'
                for l_1_c in environment.getattr((undefined(name='iv') if l_0_iv is missing else l_0_iv), 'capacity'):
                    _loop_vars = {}
                    pass
                    yield '| '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'system')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'capacity')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'load_ci')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'throughput')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'throughput_ci')))
                    yield ' | '
                    yield str(environment.finalize(environment.getattr(l_1_c, 'usd')))
                    yield ' |\n'
                l_1_c = missing
                yield '\n'

    blocks = {}
    debug_info = '1=19&2=22&5=25&6=27&8=38&10=40&11=44&15=60&18=63&23=78&24=82'
    return root, blocks, debug_info


# name: (factory, its first and last line in this file, jinja2's debug_info)
TEMPLATES = {
    'assumptions.md.j2': (_assumptions_md_j2, 33, 66, '7=13&8=17'),
    'claims.md.j2': (_claims_md_j2, 69, 224, '3=20&4=22&5=26&7=30&8=32&10=38&13=41&16=44&17=48&21=52&24=55&25=59&29=63&30=65&33=67&34=70&38=73&41=76&42=80&51=108&52=110&55=114&59=128&60=132&62=142&63=145&66=149'),
    'cost.md.j2': (_cost_md_j2, 227, 318, '3=19&7=23&8=27&11=39&12=43&14=47&15=51&19=56&22=59&24=67&26=73&27=77'),
    'disclosure.md.j2': (_disclosure_md_j2, 321, 413, '1=25&2=28&5=31&7=54&10=57&11=61&15=72&16=75&18=77&19=81'),
    'fleet.md.j2': (_fleet_md_j2, 416, 558, '1=19&2=22&5=25&6=27&7=30&9=44&11=48&12=52&16=66&17=70&20=79&21=82&25=86&26=89&28=93&30=95&31=98&32=101&34=108&39=126&40=130&44=135&45=138'),
    'headline.md.j2': (_headline_md_j2, 561, 738, '1=19&2=22&3=24&4=27&6=46&8=59&9=61&11=77&14=93&16=109&18=126&19=128&21=131&23=133&25=136&27=138&29=141&31=143&33=146&35=148&37=151&39=153&41=156&43=158&45=161&47=163&48=166&50=173'),
    'provenance.md.j2': (_provenance_md_j2, 741, 835, '1=13&4=17&5=21&6=25&7=29&12=41&14=44&15=48&19=52&22=55&23=59&31=76&32=80'),
    'report.md.j2': (_report_md_j2, 838, 1158, '2=20&4=22&8=25&9=28&12=30&14=37&15=40&18=46&21=49&22=52&23=55&26=60&28=68&30=74&31=78&35=90&36=93&37=96&39=100&41=104&42=108&47=121&48=124&50=126&52=144&54=150&55=153&56=156&58=167&63=180&68=183&69=187&75=207&76=212&78=216&79=219&80=225&81=227&86=233&87=236&89=243&96=251&97=257&98=263&99=269&100=275&102=281&103=283&105=289&106=295&107=297&109=303&110=309&111=313'),
    'sensitivity.md.j2': (_sensitivity_md_j2, 1161, 1272, '1=13&2=16&5=19&6=22&8=37&13=50&14=53&15=56&17=91&21=99&22=101&25=103&26=105&29=107'),
    'uncertainty.md.j2': (_uncertainty_md_j2, 1275, 1373, '1=19&2=22&5=25&6=27&8=38&10=40&11=44&15=60&18=63&23=78&24=82'),
}
