//! The template, evaluated symbolically: constants are computed (dictionaries, macros, loops over
//! constant lists), the annotation's fields stay symbolic, and every `if` on them becomes an
//! alternative that records what its condition says. The result is the template's shape as a
//! [`Pat`], with each loop over the annotations as a [`Pat::Loop`] whose body is kept apart.

use std::rc::Rc;

use super::pattern::{Fact, Field, Pat, Slot, Transform};
use super::syntax::{self, Expr, Node, Params, SetValue};
use crate::annotations::colors;

/// A loop over the annotations: its body and what its filters say about every annotation in it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopInfo {
    /// One iteration.
    pub body: Pat,
    /// From `filterby(...)` on the loop's list: `colorCategory` startswith `Red`, ….
    pub facts: Vec<Fact>,
}

/// The evaluated template.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The whole template, with [`Pat::Loop`] where the annotation loops are.
    pub outer: Pat,
    /// The annotation loops.
    pub loops: Vec<LoopInfo>,
    /// Constructs that were not understood, for the diagnostics: (line or 0, message).
    pub problems: Vec<(usize, String)>,
    /// The names of the `persist` blocks that hold an annotation loop: what stands in such a
    /// block in a note is the export's, not the user's own writing.
    pub persisted_loops: Vec<String>,
}

/// Reads other templates named by `{% include %}` / `{% import %}` (Obsidian link text or a path).
pub type Loader<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Evaluates `nodes` (a parsed template).
pub fn evaluate(nodes: &[Node], loader: Loader<'_>) -> Program {
    let mut ev = Eval {
        scopes: vec![globals()],
        loops: Vec::new(),
        problems: Vec::new(),
        depth: 0,
        loader,
        known: Vec::new(),
        persisted_loops: Vec::new(),
    };
    let outer = ev.nodes(nodes);
    Program { outer, loops: ev.loops, problems: ev.problems, persisted_loops: ev.persisted_loops }
}

#[derive(Debug, Clone)]
enum Val {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
    List(Vec<Val>),
    Dict(Vec<(String, Val)>),
    /// A field of the annotation, with what was done to it.
    Field(Field, Vec<Transform>),
    /// A field of the annotation looked up in a constant dictionary: one value per key.
    Switch(Field, Vec<(String, Val)>),
    /// The annotation itself.
    Ann,
    /// The annotations list, with the facts its filters give.
    Annotations(Vec<Fact>),
    /// A list the template built by pushing one record per annotation
    /// (`{% set list = (list.push({"annotation": a, "bucket": b}), list) %}` in a loop over the
    /// annotations): what one record holds, and the facts its filters give.
    Records(Box<Val>, Vec<Fact>),
    /// The annotations grouped by a field (`annotations | groupby("page")`): a loop over it gives
    /// each group's value of the field and its annotations.
    Grouped(Field, Vec<Fact>),
    /// The item's creators (a loop over them prints the authors).
    Creators,
    /// Text with slots (a macro's output, a `set` block, a concatenation).
    Pat(Pat),
    /// A method of a value, not yet called.
    Method(Box<Val>, String),
    Macro(Rc<(Params, Vec<Node>)>),
    /// Anything not known until the template runs.
    Any,
}

/// The truth of a condition: known, or unknown with the facts each outcome gives.
enum Tri {
    True,
    False,
    Maybe(Vec<Fact>, Vec<Fact>),
}

/// The variables a loop body sets, unknown when an iteration starts: Nunjucks keeps a `set`
/// from one iteration to the next (`{% if not shown %}### Heading{% set shown = true %}{% endif %}`
/// prints the heading for the first annotation only).
fn carried(body: &[Node]) -> Vec<(String, Val)> {
    fn walk(nodes: &[Node], out: &mut Vec<(String, Val)>) {
        for node in nodes {
            match node {
                Node::Set { names, .. } => out.extend(names.iter().map(|n| (n.clone(), Val::Any))),
                Node::If(branches) => branches.iter().for_each(|(_, b)| walk(b, out)),
                Node::For { body, empty, .. } => {
                    walk(body, out);
                    walk(empty, out);
                }
                Node::FilterBlock { body, .. } | Node::Persist { body, .. } => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

fn globals() -> Vec<(String, Val)> {
    let field = |f| Val::Field(f, Vec::new());
    vec![
        ("annotations".into(), Val::Annotations(Vec::new())),
        ("title".into(), field(Field::MetaTitle)),
        ("authors".into(), field(Field::MetaAuthors)),
        ("creators".into(), Val::Creators),
        ("citekey".into(), field(Field::MetaCitekey)),
        ("citationKey".into(), field(Field::MetaCitekey)),
        ("date".into(), field(Field::MetaYear)),
        ("year".into(), field(Field::MetaYear)),
    ]
}

struct Eval<'a> {
    scopes: Vec<Vec<(String, Val)>>,
    loops: Vec<LoopInfo>,
    problems: Vec<(usize, String)>,
    depth: usize,
    loader: Loader<'a>,
    /// Per loop over the annotations being evaluated: the fields its filters fix (`filterby("color",
    /// "startswith", "#ff6666")` gives every annotation in it that colour).
    known: Vec<Vec<(Field, String)>>,
    persisted_loops: Vec<String>,
}

const MAX_DEPTH: usize = 24;
const MAX_UNROLL: usize = 256;

impl Eval<'_> {
    fn get(&self, name: &str) -> Val {
        for scope in self.scopes.iter().rev() {
            if let Some((_, v)) = scope.iter().rev().find(|(n, _)| n == name) {
                return v.clone();
            }
        }
        Val::Any
    }

    /// Gives every binding of `name` the value `value` (a list mutated in place is the same list
    /// in every scope that sees it).
    fn replace_everywhere(&mut self, name: &str, value: Val) {
        for scope in &mut self.scopes {
            for (n, v) in scope.iter_mut() {
                if n == name {
                    *v = value.clone();
                }
            }
        }
    }

    fn set(&mut self, name: &str, value: Val) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), value));
        }
    }

    fn problem(&mut self, line: usize, message: String) {
        if !self.problems.iter().any(|(_, m)| *m == message) {
            self.problems.push((line, message));
        }
    }

    fn nodes(&mut self, nodes: &[Node]) -> Pat {
        let mut items = Vec::new();
        for node in nodes {
            let p = self.node(node);
            Pat::push(&mut items, p);
        }
        Pat::seq(items)
    }

    fn scoped<T>(&mut self, vars: Vec<(String, Val)>, f: impl FnOnce(&mut Self) -> T) -> T {
        self.scopes.push(vars);
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        self.scopes.pop();
        out
    }

    fn node(&mut self, node: &Node) -> Pat {
        if self.depth > MAX_DEPTH {
            self.problem(0, "templates nest too deeply (a macro or include calls itself?)".into());
            return Pat::empty();
        }
        match node {
            Node::Text(t) => Pat::Lit(t.clone()),
            Node::Output(e) => {
                let v = self.eval(e);
                render(v)
            }
            Node::If(branches) => self.if_chain(branches),
            Node::For { vars, iter, body, empty } => self.for_loop(vars, iter, body, empty),
            Node::Set { names, value } => {
                let v = match value {
                    SetValue::Expr(e) => self.eval(e),
                    SetValue::Body(body) => Val::Pat(self.nodes(body)),
                };
                for name in names {
                    self.set(name, v.clone());
                }
                Pat::empty()
            }
            Node::Macro { name, params, body } => {
                self.set(name, Val::Macro(Rc::new((params.clone(), body.clone()))));
                Pat::empty()
            }
            Node::Include(target) => match self.eval(target) {
                Val::Str(name) => match (self.loader)(&name).map(|src| syntax::parse(&src)) {
                    Some(Ok(nodes)) => self.scoped(Vec::new(), |ev| ev.nodes(&nodes)),
                    Some(Err(e)) => {
                        self.problem(
                            e.line,
                            format!("the included template {name} could not be read: {}", e.message),
                        );
                        Pat::empty()
                    }
                    None => {
                        self.problem(0, format!("the included template {name} was not found in the vault"));
                        Pat::empty()
                    }
                },
                _ => {
                    self.problem(
                        0,
                        "an {% include %} names its template with an expression; it was skipped".into(),
                    );
                    Pat::empty()
                }
            },
            Node::Import(names) => {
                for name in names {
                    self.set(name, Val::Any);
                }
                self.problem(
                    0,
                    "macros from {% import %} are not read; what they print is matched loosely".into(),
                );
                Pat::empty()
            }
            Node::FilterBlock { body, .. } => self.nodes(body),
            Node::Persist { key, body } => {
                let loops = self.loops.len();
                let inner = self.nodes(body);
                let key = render(self.eval(key));
                if let Pat::Lit(name) = &key
                    && self.loops.len() > loops
                {
                    self.persisted_loops.push(name.trim().to_string());
                }
                Pat::seq([
                    Pat::Lit("%% begin ".into()),
                    key.clone(),
                    Pat::Lit(" %%".into()),
                    inner,
                    Pat::Lit("%% end ".into()),
                    key,
                    Pat::Lit(" %%".into()),
                ])
            }
            Node::Other { tag, line } => {
                self.problem(
                    *line,
                    format!("the {{% {tag} %}} tag is not understood; what it prints is skipped"),
                );
                Pat::empty()
            }
        }
    }

    fn if_chain(&mut self, branches: &[(Option<Expr>, Vec<Node>)]) -> Pat {
        let mut alts: Vec<(Vec<Fact>, Pat)> = Vec::new();
        let mut otherwise: Vec<Fact> = Vec::new();
        let mut exhaustive = false;
        // What each branch taken sets, undone before the next branch: only one of them runs.
        let mut sets: Vec<Vec<(String, Val)>> = Vec::new();
        for (cond, body) in branches {
            let tri = cond.as_ref().map_or(Tri::True, |c| self.truth(c));
            let facts = match tri {
                Tri::False => continue,
                Tri::True => otherwise.clone(),
                Tri::Maybe(ref yes, _) => otherwise.iter().chain(yes).cloned().collect(),
            };
            let mark = self.scopes.last().map_or(0, Vec::len);
            let p = self.nodes(body);
            sets.push(self.scopes.last_mut().map(|s| s.split_off(mark.min(s.len()))).unwrap_or_default());
            alts.push((facts, p));
            match tri {
                Tri::Maybe(_, no) => otherwise.extend(no),
                _ => {
                    exhaustive = true;
                    break;
                }
            }
        }
        self.merge_sets(&alts, &otherwise, exhaustive, sets);
        if !exhaustive {
            alts.push((otherwise, Pat::empty()));
        }
        // Branches that print nothing say nothing about the annotation.
        if alts.iter().all(|(_, p)| p.is_empty()) {
            return Pat::empty();
        }
        if alts.len() == 1 && alts[0].0.is_empty() {
            return alts.pop().map(|(_, p)| p).unwrap_or_else(Pat::empty);
        }
        Pat::Alt(alts)
    }

    /// The variables the branches of an `if` set (`{% if c == "Red" %}{% set kind = "danger" %}
    /// {% elif … %}`): each becomes what it prints under each branch's facts, so a later
    /// `[!{{kind}}]` reads the colour back. A value that does not print (a list, a macro) is the
    /// one the last branch set.
    fn merge_sets(
        &mut self,
        alts: &[(Vec<Fact>, Pat)],
        otherwise: &[Fact],
        exhaustive: bool,
        sets: Vec<Vec<(String, Val)>>,
    ) {
        let mut names: Vec<String> = Vec::new();
        for (name, _) in sets.iter().flatten() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        for name in names {
            let before = self.get(&name);
            let value_in = |set: &Vec<(String, Val)>| {
                set.iter().rev().find(|(n, _)| *n == name).map_or_else(|| before.clone(), |(_, v)| v.clone())
            };
            let printable = |v: &Val| {
                matches!(
                    v,
                    Val::Str(_) | Val::Num(_) | Val::Null | Val::Field(..) | Val::Switch(..) | Val::Pat(_)
                )
            };
            // With no branch taken the value stays what it was: unknown in a loop that sets it
            // (the last iteration's, one of these), so only the branches' values are expected.
            let keeps_before = !exhaustive && printable(&before);
            let mut values: Vec<Val> = sets.iter().map(value_in).collect();
            if keeps_before {
                values.push(before.clone());
            }
            let merged = if values.len() == 1 {
                values.pop().unwrap_or(Val::Any)
            } else if values.iter().all(printable) {
                let facts =
                    alts.iter().map(|(f, _)| f.clone()).chain(keeps_before.then(|| otherwise.to_vec()));
                Val::Pat(Pat::Alt(facts.zip(values.into_iter().map(render)).collect()))
            } else {
                // As before branches were told apart: what the last branch that sets it set (an
                // `{% if %}` choosing between two filters of the annotations keeps a list).
                sets.iter().rev().flatten().find(|(n, _)| *n == name).map_or(Val::Any, |(_, v)| v.clone())
            };
            self.set(&name, merged);
        }
    }

    fn for_loop(&mut self, vars: &[String], iter: &Expr, body: &[Node], empty: &[Node]) -> Pat {
        let var = vars.first().cloned().unwrap_or_default();
        match self.eval(iter) {
            Val::Annotations(mut facts) => {
                let mut scope = carried(body);
                scope.extend([(var, Val::Ann), ("loop".into(), Val::Any)]);
                self.known.push(fixed_fields(&facts));
                let (pat, filter) = filter_of(self.scoped(scope, |ev| ev.nodes(body)));
                self.known.pop();
                facts.extend(filter);
                let prints_annotations =
                    [Field::Text, Field::Comment, Field::Image].iter().any(|f| pat.has_field(*f));
                if prints_annotations {
                    self.loops.push(LoopInfo { body: pat, facts });
                    Pat::Loop(self.loops.len() - 1)
                } else {
                    Pat::Repeat(Box::new(pat))
                }
            }
            Val::Records(record, facts) => {
                // A loop over the records pushed per annotation: one iteration per annotation.
                let mut scope = carried(body);
                scope.extend([(var, *record), ("loop".into(), Val::Any)]);
                let pat = self.scoped(scope, |ev| ev.nodes(body));
                if [Field::Text, Field::Comment, Field::Image].iter().any(|f| pat.has_field(*f)) {
                    self.loops.push(LoopInfo { body: pat, facts });
                    Pat::Loop(self.loops.len() - 1)
                } else {
                    Pat::Repeat(Box::new(pat))
                }
            }
            Val::List(items) if items.is_empty() => self.nodes(empty),
            Val::Dict(items) if items.is_empty() => self.nodes(empty),
            Val::List(items) => {
                let n = items.len();
                let parts: Vec<Pat> = items
                    .into_iter()
                    .take(MAX_UNROLL)
                    .enumerate()
                    .map(|(i, item)| {
                        let scope = vec![(var.clone(), item), ("loop".into(), loop_var(i, n))];
                        self.scoped(scope, |ev| ev.nodes(body))
                    })
                    .collect();
                Pat::seq(parts)
            }
            Val::Dict(entries) => {
                let n = entries.len();
                let parts: Vec<Pat> = entries
                    .into_iter()
                    .take(MAX_UNROLL)
                    .enumerate()
                    .map(|(i, (k, v))| {
                        let mut scope = vec![("loop".into(), loop_var(i, n))];
                        match vars {
                            [key, value, ..] => {
                                scope.push((key.clone(), Val::Str(k)));
                                scope.push((value.clone(), v));
                            }
                            _ => scope.push((var.clone(), Val::Str(k))),
                        }
                        self.scoped(scope, |ev| ev.nodes(body))
                    })
                    .collect();
                Pat::seq(parts)
            }
            Val::Grouped(field, facts) => {
                // `{% for page, annots in grouped %}#### Page {{page}}{% for a in annots %}…`: the
                // group's value is printed once above its annotations (see `Template::group_lines`).
                let mut scope = carried(body);
                if let [key, group, ..] = vars {
                    scope.push((key.clone(), Val::Field(field, Vec::new())));
                    scope.push((group.clone(), Val::Annotations(facts)));
                }
                scope.push(("loop".into(), Val::Any));
                Pat::Repeat(Box::new(self.scoped(scope, |ev| ev.nodes(body))))
            }
            Val::Creators => Pat::Slot(Slot { field: Field::MetaAuthors, transforms: Vec::new() }),
            _ => {
                let mut scope = carried(body);
                scope.extend(vars.iter().map(|v| (v.clone(), Val::Any)).chain([("loop".into(), Val::Any)]));
                let pat = self.scoped(scope, |ev| ev.nodes(body));
                if [Field::Text, Field::Image].iter().any(|f| pat.has_field(*f)) {
                    // A loop over a list built from the annotations.
                    self.loops.push(LoopInfo { body: pat, facts: Vec::new() });
                    return Pat::Loop(self.loops.len() - 1);
                }
                Pat::Repeat(Box::new(pat))
            }
        }
    }

    /// `target.name`, where a field the loop's filter fixes is that value (`categoryIcon[
    /// zoteroColors[entry.color]]` in a loop over the red annotations prints the red one's icon).
    fn attr(&self, target: Val, name: &str) -> Val {
        if matches!(target, Val::Ann)
            && let Some(field) = Field::of_attribute(name)
            && let Some((_, value)) = self.known.last().into_iter().flatten().find(|(f, _)| *f == field)
        {
            return Val::Str(value.clone());
        }
        attr(target, name)
    }

    fn eval(&mut self, e: &Expr) -> Val {
        match e {
            Expr::Str(s) => Val::Str(s.clone()),
            Expr::Num(n) => n.parse().map_or(Val::Any, Val::Num),
            Expr::Bool(b) => Val::Bool(*b),
            Expr::Null => Val::Null,
            Expr::Regex(_) => Val::Any,
            Expr::Var(name) => self.get(name),
            Expr::Attr(target, name) => {
                let target = self.eval(target);
                self.attr(target, name)
            }
            Expr::Index(target, index) => {
                let target = self.eval(target);
                let index = self.eval(index);
                match (target, index) {
                    (t, Val::Str(key)) => self.attr(t, &key),
                    (Val::List(items), Val::Num(i)) => items.get(i as usize).cloned().unwrap_or(Val::Null),
                    (Val::Dict(entries), Val::Field(f, _)) => Val::Switch(f, entries),
                    // `categoryIcon[zoteroColors[entry.color]]`: a dict looked up by what another
                    // dict gives for the field is a lookup by the field.
                    (Val::Dict(entries), Val::Switch(f, keys)) => Val::Switch(
                        f,
                        keys.into_iter()
                            .map(|(k, v)| {
                                let found = match v {
                                    Val::Str(name) => attr(Val::Dict(entries.clone()), &name),
                                    _ => Val::Null,
                                };
                                (k, found)
                            })
                            .collect(),
                    ),
                    (Val::Annotations(_), _) => Val::Ann,
                    _ => Val::Any,
                }
            }
            Expr::Call(callee, args) => {
                if let Expr::Attr(target, method) = callee.as_ref()
                    && method == "push"
                    && let Expr::Var(list) = target.as_ref()
                {
                    let pushed: Vec<Val> = args.iter().map(|a| self.eval(a)).collect();
                    if let Some(record) = pushed.into_iter().find(holds_annotation) {
                        self.replace_everywhere(list, Val::Records(Box::new(record), Vec::new()));
                    }
                    return Val::Any;
                }
                let callee = self.eval(callee);
                self.call(callee, args)
            }
            Expr::Filter(target, name, args) => {
                let target = self.eval(target);
                let args: Vec<Val> = args.iter().map(|a| self.eval(a)).collect();
                filter(target, name, &args)
            }
            Expr::Binary(left, op, right) => match op.as_str() {
                "," => {
                    self.eval(left);
                    self.eval(right)
                }
                "~" | "+" => {
                    let (l, r) = (self.eval(left), self.eval(right));
                    match (l, r) {
                        (Val::Num(a), Val::Num(b)) if op == "+" => Val::Num(a + b),
                        (Val::Str(a), Val::Str(b)) => Val::Str(a + &b),
                        (l, r) => Val::Pat(Pat::seq([render(l), render(r)])),
                    }
                }
                "-" | "*" | "/" | "//" | "%" | "**" => Val::Any,
                // `{{annotation.page or 1}}`: the left value when it is set, else the right one
                // (as JavaScript's `||`, which Nunjucks compiles `or` to). A page, colour or key
                // with a constant default is read as the field: the note cannot tell a printed
                // `1` from page 1, and page 1 is by far the likelier.
                "or" if let Val::Field(f, _) = self.eval(left)
                    && f.is_narrow()
                    && matches!(self.eval(right), Val::Str(_) | Val::Num(_)) =>
                {
                    self.eval(left)
                }
                "or" => match self.truth(left) {
                    Tri::True => self.eval(left),
                    Tri::False => self.eval(right),
                    Tri::Maybe(yes, no) => {
                        let (l, r) = (render(self.eval(left)), render(self.eval(right)));
                        Val::Pat(Pat::Alt(vec![(yes, l), (no, r)]))
                    }
                },
                _ => match self.truth(e) {
                    Tri::True => Val::Bool(true),
                    Tri::False => Val::Bool(false),
                    Tri::Maybe(..) => Val::Any,
                },
            },
            Expr::Not(_) | Expr::Is(..) => match self.truth(e) {
                Tri::True => Val::Bool(true),
                Tri::False => Val::Bool(false),
                Tri::Maybe(..) => Val::Any,
            },
            Expr::Cond(then, cond, otherwise) => match self.truth(cond) {
                Tri::True => self.eval(then),
                Tri::False => otherwise.as_ref().map_or(Val::Null, |o| self.eval(o)),
                Tri::Maybe(yes, no) => {
                    let a = render(self.eval(then));
                    let b = otherwise.as_ref().map_or_else(Pat::empty, |o| render(self.eval(o)));
                    Val::Pat(Pat::Alt(vec![(yes, a), (no, b)]))
                }
            },
            Expr::List(items) => Val::List(items.iter().map(|i| self.eval(i)).collect()),
            Expr::Dict(items) => Val::Dict(
                items
                    .iter()
                    .map(|(k, v)| {
                        let key = match self.eval(k) {
                            Val::Str(s) => s,
                            _ => match k {
                                Expr::Var(name) => name.clone(),
                                _ => String::new(),
                            },
                        };
                        (key, self.eval(v))
                    })
                    .collect(),
            ),
        }
    }

    fn call(&mut self, callee: Val, args: &[Expr]) -> Val {
        match callee {
            Val::Macro(m) => {
                let (params, body) = (&m.0, &m.1);
                let mut scope = Vec::new();
                for (i, (name, default)) in params.iter().enumerate() {
                    let v = match args.get(i) {
                        Some(a) => self.eval(a),
                        None => default.as_ref().map_or(Val::Null, |d| self.eval(d)),
                    };
                    scope.push((name.clone(), v));
                }
                let body = body.clone();
                Val::Pat(self.scoped(scope, |ev| ev.nodes(&body)))
            }
            Val::Method(target, name) => {
                let args: Vec<Val> = args.iter().map(|a| self.eval(a)).collect();
                method(*target, &name, &args)
            }
            _ => Val::Any,
        }
    }

    fn truth(&mut self, e: &Expr) -> Tri {
        match e {
            Expr::Not(inner) => match self.truth(inner) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Maybe(yes, no) => Tri::Maybe(no, yes),
            },
            Expr::Binary(l, op, r) if op == "and" => match (self.truth(l), self.truth(r)) {
                (Tri::False, _) | (_, Tri::False) => Tri::False,
                (Tri::True, other) | (other, Tri::True) => other,
                (Tri::Maybe(mut a, _), Tri::Maybe(b, _)) => {
                    a.extend(b);
                    Tri::Maybe(a, Vec::new())
                }
            },
            Expr::Binary(l, op, r) if op == "or" => match (self.truth(l), self.truth(r)) {
                (Tri::True, _) | (_, Tri::True) => Tri::True,
                (Tri::False, other) | (other, Tri::False) => other,
                (Tri::Maybe(x, mut a), Tri::Maybe(y, b)) => {
                    a.extend(b);
                    // `a.color == "#ffd400" or a.colorCategory == "Yellow"`: one colour either way.
                    let same = match (same_colour(&x), same_colour(&y)) {
                        (Some(p), Some(q)) if p == q => vec![Fact::Is(Field::Color, p)],
                        _ => Vec::new(),
                    };
                    Tri::Maybe(same, a)
                }
            },
            Expr::Binary(l, op, r) if op == "==" || op == "!=" => {
                let (a, b) = (self.eval(l), self.eval(r));
                let tri = equals(&a, &b);
                if op == "!=" {
                    match tri {
                        Tri::True => Tri::False,
                        Tri::False => Tri::True,
                        Tri::Maybe(yes, no) => Tri::Maybe(no, yes),
                    }
                } else {
                    tri
                }
            }
            // `"Gray" in annotation.colorCategory`: the colour (or type) is that one.
            Expr::Binary(l, op, r) if op == "in" || op == "not in" => {
                let fact = match (self.eval(l), self.eval(r)) {
                    (Val::Str(s), Val::Field(f @ (Field::ColorCategory | Field::Color | Field::Type), _))
                        if !s.trim().is_empty() =>
                    {
                        vec![Fact::Is(f, s)]
                    }
                    _ => Vec::new(),
                };
                if op == "in" { Tri::Maybe(fact, Vec::new()) } else { Tri::Maybe(Vec::new(), fact) }
            }
            Expr::Binary(..) => Tri::Maybe(Vec::new(), Vec::new()),
            Expr::Is(inner, test, negated) => {
                let v = self.eval(inner);
                let tri = match (test.as_str(), &v) {
                    ("defined" | "truthy" | "string", Val::Field(f, _)) => {
                        Tri::Maybe(vec![Fact::Has(*f)], vec![Fact::Lacks(*f)])
                    }
                    ("defined", Val::Null) => Tri::False,
                    ("defined", Val::Str(_) | Val::Num(_) | Val::Bool(_) | Val::List(_) | Val::Dict(_)) => {
                        Tri::True
                    }
                    ("none" | "null", Val::Null) => Tri::True,
                    _ => Tri::Maybe(Vec::new(), Vec::new()),
                };
                match (tri, negated) {
                    (t, false) => t,
                    (Tri::True, true) => Tri::False,
                    (Tri::False, true) => Tri::True,
                    (Tri::Maybe(a, b), true) => Tri::Maybe(b, a),
                }
            }
            other => {
                let v = self.eval(other);
                truthy(&v)
            }
        }
    }
}

/// The fields `facts` (a loop's filters) fix to one whole value: a colour's full hex, a Zotero
/// colour name, a type. A prefix (`startswith "#ff"`) fixes nothing.
fn fixed_fields(facts: &[Fact]) -> Vec<(Field, String)> {
    const TYPES: [&str; 6] = ["highlight", "underline", "note", "image", "ink", "text"];
    facts
        .iter()
        .filter_map(|f| match f {
            Fact::Is(Field::Color, v) if v.len() == 7 && colors::parse_hex(v).is_some() => {
                Some((Field::Color, v.to_ascii_lowercase()))
            }
            Fact::Is(Field::ColorCategory, v) if colors::zotero_hex_of_name(v).is_some() => {
                Some((Field::ColorCategory, v.clone()))
            }
            Fact::Is(Field::Type, v) if TYPES.contains(&v.as_str()) => Some((Field::Type, v.clone())),
            _ => None,
        })
        .collect()
}

/// A loop body that is one `{% if %}` printing nothing otherwise (`{% for a in annotations %}{%
/// if a.color == "#ffd400" %}…{% endif %}{% endfor %}`) filters the loop, as `filterby` does: the
/// branch's facts become the loop's and the branch its body. Loops over each colour that print
/// the same body then share one reader, told apart by the heading over each of them.
fn filter_of(pat: Pat) -> (Pat, Vec<Fact>) {
    match pat {
        Pat::Alt(mut branches)
            if branches.len() > 1 && branches.iter().filter(|(_, p)| !p.is_empty()).count() == 1 =>
        {
            let at = branches.iter().position(|(_, p)| !p.is_empty()).unwrap_or(0);
            let (facts, body) = branches.swap_remove(at);
            (body, facts)
        }
        other => (other, Vec::new()),
    }
}

/// The one colour (`#rrggbb`) that `facts` pin down, by hex or by Zotero's colour name.
fn same_colour(facts: &[Fact]) -> Option<String> {
    let mut colours = facts.iter().filter_map(|f| match f {
        Fact::Is(Field::Color, hex) => crate::annotations::colors::parse_hex(hex),
        Fact::Is(Field::ColorCategory, name) => {
            crate::annotations::colors::zotero_hex_of_name(name).map(str::to_string)
        }
        _ => None,
    });
    let first = colours.next()?;
    colours.all(|c| c == first).then_some(first)
}

fn loop_var(i: usize, n: usize) -> Val {
    Val::Dict(vec![
        ("index".into(), Val::Num((i + 1) as f64)),
        ("index0".into(), Val::Num(i as f64)),
        ("first".into(), Val::Bool(i == 0)),
        ("last".into(), Val::Bool(i + 1 == n)),
        ("length".into(), Val::Num(n as f64)),
    ])
}

fn truthy(v: &Val) -> Tri {
    match v {
        Val::Str(s) => bool_tri(!s.is_empty()),
        Val::Num(n) => bool_tri(*n != 0.0),
        Val::Bool(b) => bool_tri(*b),
        Val::Null => Tri::False,
        Val::List(_) | Val::Dict(_) | Val::Ann | Val::Macro(_) | Val::Method(..) => Tri::True,
        Val::Field(f, t) if !t.contains(&Transform::Partial) => {
            Tri::Maybe(vec![Fact::Has(*f)], vec![Fact::Lacks(*f)])
        }
        _ => Tri::Maybe(Vec::new(), Vec::new()),
    }
}

fn bool_tri(b: bool) -> Tri {
    if b { Tri::True } else { Tri::False }
}

fn equals(a: &Val, b: &Val) -> Tri {
    match (a, b) {
        (Val::Field(f, t), Val::Str(s)) | (Val::Str(s), Val::Field(f, t))
            if !t.contains(&Transform::Partial) =>
        {
            Tri::Maybe(vec![Fact::Is(*f, s.clone())], Vec::new())
        }
        (Val::Str(x), Val::Str(y)) => bool_tri(x == y),
        (Val::Num(x), Val::Num(y)) => bool_tri(x == y),
        (Val::Bool(x), Val::Bool(y)) => bool_tri(x == y),
        (Val::Null, Val::Null) => Tri::True,
        _ => Tri::Maybe(Vec::new(), Vec::new()),
    }
}

/// `target.name`.
fn attr(target: Val, name: &str) -> Val {
    match target {
        Val::Ann => match name {
            "attachment" => Val::Any,
            _ => Field::of_attribute(name).map_or(Val::Any, |f| Val::Field(f, Vec::new())),
        },
        Val::Dict(entries) => {
            entries.into_iter().rev().find(|(k, _)| k == name).map_or(Val::Null, |(_, v)| v)
        }
        // `colorToType[annotation.color].symbol`: the same field picks the entry's attribute.
        Val::Switch(field, entries) => {
            Val::Switch(field, entries.into_iter().map(|(k, v)| (k, attr(v, name))).collect())
        }
        Val::List(items) if name == "length" => Val::Num(items.len() as f64),
        Val::Str(s) if name == "length" => Val::Num(s.chars().count() as f64),
        Val::Field(..) | Val::Str(_) if name == "length" => Val::Any,
        v @ (Val::Field(..) | Val::Str(_)) => Val::Method(Box::new(v), name.to_string()),
        // A value the evaluation lost track of (an annotation copied into a list of wrappers):
        // the annotation's own attribute names still say what is printed.
        Val::Any => Field::of_attribute(name).map_or(Val::Any, |f| Val::Field(f, Vec::new())),
        _ => Val::Any,
    }
}

/// `target.name(args)`: JavaScript string methods.
fn method(target: Val, name: &str, args: &[Val]) -> Val {
    match name {
        "replace" | "replaceAll" => filter(target, "replace", args),
        "trim" | "trimStart" | "trimEnd" | "toString" => filter(target, "trim", args),
        "toLowerCase" | "toUpperCase" | "toLocaleLowerCase" | "toLocaleUpperCase" => {
            filter(target, "lower", args)
        }
        "substring" | "substr" | "slice" => match target {
            Val::Field(f, mut t) => {
                t.push(Transform::Partial);
                Val::Field(f, t)
            }
            _ => Val::Any,
        },
        _ => Val::Any,
    }
}

/// The facts under which `p`, a value the template computed from the annotation, passes
/// `filterby(…, cmd, value)`. Where it prints the colour's own name (`colorCategory | lower`,
/// the fallback for colours a dictionary does not list), the name that passes is the colour;
/// else the facts shared by every constant it may print that passes (`"red"` where the colour
/// is `#ff6666`).
fn facts_where(p: &Pat, cmd: &str, value: &str) -> Vec<Fact> {
    struct Walk<'a> {
        pass: &'a dyn Fn(&str) -> bool,
        value: &'a str,
        constants: Vec<Vec<Fact>>,
        named: Vec<Vec<Fact>>,
    }
    fn walk(p: &Pat, path: &mut Vec<Fact>, w: &mut Walk<'_>) {
        match p {
            Pat::Alt(branches) => {
                for (facts, b) in branches {
                    let depth = path.len();
                    path.extend(facts.iter().cloned());
                    walk(b, path, w);
                    path.truncate(depth);
                }
            }
            Pat::Lit(s) if (w.pass)(s.trim()) => w.constants.push(path.clone()),
            Pat::Slot(slot)
                if slot.field == Field::ColorCategory
                    && slot.transforms.iter().all(|t| *t == Transform::Case)
                    && !w.value.is_empty() =>
            {
                let mut name: Vec<char> = w.value.chars().collect();
                name[0] = name[0].to_ascii_uppercase();
                let mut facts = path.clone();
                facts.push(Fact::Is(Field::ColorCategory, name.into_iter().collect()));
                w.named.push(facts);
            }
            Pat::Seq(items) if items.len() == 1 => walk(&items[0], path, w),
            _ => {}
        }
    }
    let pass = |s: &str| match cmd {
        "startswith" => s.starts_with(value),
        "endswith" => s.ends_with(value),
        "contains" | "includes" => s.contains(value),
        "=" | "==" | "===" | "is" | "equals" => s == value,
        _ => false,
    };
    let exact = matches!(cmd, "=" | "==" | "===" | "is" | "equals" | "startswith");
    let mut w =
        Walk { pass: &pass, value: if exact { value } else { "" }, constants: Vec::new(), named: Vec::new() };
    walk(p, &mut Vec::new(), &mut w);
    if let [named] = w.named.as_slice() {
        return named.clone();
    }
    let Some(first) = w.constants.first() else { return Vec::new() };
    first.iter().filter(|f| w.constants.iter().all(|o| o.contains(f))).cloned().collect()
}

/// Whether a value pushed to a list holds the annotation (itself, or in a dictionary).
fn holds_annotation(v: &Val) -> bool {
    match v {
        Val::Ann => true,
        Val::Dict(entries) => entries.iter().any(|(_, v)| holds_annotation(v)),
        _ => false,
    }
}

/// `target | name(args)`.
fn filter(target: Val, name: &str, args: &[Val]) -> Val {
    match target {
        // Filtered or sorted, the records are still one per annotation; a filter on a value
        // the record took from the annotation's colour gives the colour.
        Val::Records(record, mut facts) => match name {
            "length" | "first" | "last" => Val::Any,
            "filterby" => {
                if let [Val::Str(prop), Val::Str(cmd), Val::Str(value), ..] = args
                    && let Val::Dict(entries) = record.as_ref()
                    && let Some((_, held)) = entries.iter().find(|(k, _)| k == prop)
                {
                    facts.extend(facts_where(&render(held.clone()), cmd, value));
                }
                Val::Records(record, facts)
            }
            _ => Val::Records(record, facts),
        },
        Val::Annotations(mut facts) => match name {
            "filterby" => {
                if let [Val::Str(prop), Val::Str(cmd), Val::Str(value), ..] = args
                    && (cmd == "startswith" || cmd == "contains" && value.len() > 2)
                    && let Some(f) = Field::of_attribute(prop)
                    && matches!(f, Field::Color | Field::ColorCategory | Field::Type)
                {
                    facts.push(Fact::Is(f, value.clone()));
                }
                Val::Annotations(facts)
            }
            "groupby" => match args {
                [Val::Str(prop), ..] if let Some(f) = Field::of_attribute(prop) => Val::Grouped(f, facts),
                _ => Val::Any,
            },
            "length" | "first" | "last" => Val::Any,
            _ => Val::Annotations(facts),
        },
        Val::Field(f, mut t) => {
            let transform = match name {
                "nl2br" => Some(Transform::Nl2br),
                "replace" => match args {
                    [Val::Str(from), Val::Str(to), ..] => Some(Transform::Replace(from.clone(), to.clone())),
                    _ => Some(Transform::Partial),
                },
                "lower" | "upper" | "capitalize" | "title" => Some(Transform::Case),
                "escape" | "e" => Some(Transform::Escape),
                "truncate" | "first" | "last" | "wordcount" | "striptags" | "urlencode" => {
                    Some(Transform::Partial)
                }
                "length" => return Val::Any,
                "format" if f == Field::MetaYear => return year_format(args),
                _ => None,
            };
            t.extend(transform);
            Val::Field(f, t)
        }
        Val::Str(s) => match (name, args) {
            ("replace", [Val::Str(from), Val::Str(to), ..]) if !from.is_empty() => {
                Val::Str(s.replace(from, to))
            }
            ("lower", _) => Val::Str(s.to_lowercase()),
            ("upper", _) => Val::Str(s.to_uppercase()),
            ("trim", _) => Val::Str(s.trim().to_string()),
            ("capitalize", _) => {
                let mut c = s.chars();
                Val::Str(c.next().map_or(String::new(), |f| {
                    f.to_uppercase().chain(c.flat_map(char::to_lowercase)).collect()
                }))
            }
            ("length", _) => Val::Num(s.chars().count() as f64),
            ("safe" | "escape" | "e" | "string" | "default" | "d", _) => Val::Str(s),
            _ => Val::Any,
        },
        Val::Null if name == "default" || name == "d" => args.first().cloned().unwrap_or(Val::Null),
        Val::List(items) => match name {
            "length" => Val::Num(items.len() as f64),
            "first" => items.into_iter().next().unwrap_or(Val::Null),
            "last" => items.into_iter().last().unwrap_or(Val::Null),
            "join" => Val::Any,
            _ => Val::List(items),
        },
        Val::Pat(p) => match name {
            "safe" | "trim" | "escape" | "e" | "string" => Val::Pat(p),
            _ => Val::Any,
        },
        other @ (Val::Switch(..) | Val::Creators) => other,
        _ => Val::Any,
    }
}

/// `date | format("YYYY")` is the year; other formats print something else of the date.
fn year_format(args: &[Val]) -> Val {
    match args.first() {
        Some(Val::Str(f)) if f.trim() == "YYYY" => Val::Field(Field::MetaYear, Vec::new()),
        _ => Val::Any,
    }
}

/// How a value is printed.
fn render(v: Val) -> Pat {
    match v {
        Val::Str(s) => Pat::Lit(s),
        Val::Num(n) => Pat::Lit(if n.fract() == 0.0 { format!("{}", n as i64) } else { n.to_string() }),
        Val::Bool(b) => Pat::Lit(b.to_string()),
        Val::Null => Pat::empty(),
        Val::Field(field, transforms) => Pat::Slot(Slot { field, transforms }),
        Val::Switch(field, entries) => {
            let mut alts: Vec<(Vec<Fact>, Pat)> =
                entries.into_iter().map(|(k, v)| (vec![Fact::Is(field, k)], render(v))).collect();
            alts.push((Vec::new(), Pat::empty()));
            Pat::Alt(alts)
        }
        Val::Pat(p) => p,
        Val::Creators => Pat::Slot(Slot { field: Field::MetaAuthors, transforms: Vec::new() }),
        _ => Pat::Slot(Slot { field: Field::Other, transforms: Vec::new() }),
    }
}
