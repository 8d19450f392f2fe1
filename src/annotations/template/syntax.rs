//! Nunjucks template text → a tree of [`Node`]s with [`Expr`]essions.
//!
//! Zotero Integration renders its export templates with Nunjucks (Jinja2's syntax with a few
//! JavaScript habits: `===`, method calls, `r/regex/`). This reads that syntax — output tags,
//! `if`/`elif`/`else`, `for`, `set`, `macro`, `include`, `raw`, `filter`, the plugin's `persist`,
//! whitespace control with `-` — into plain data. It never evaluates anything; the compiler
//! interprets the tree symbolically. Errors name the line and the construct.

use std::fmt;

/// A piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Constant text (whitespace control already applied).
    Text(String),
    /// `{{ expr }}`.
    Output(Expr),
    /// `{% if %}…{% elif %}…{% else %}…{% endif %}`: each branch with its condition (`None`: else).
    If(Vec<(Option<Expr>, Vec<Node>)>),
    /// `{% for x in expr %}…{% else %}…{% endfor %}`.
    For {
        /// The loop variables (`x`, or `k, v`).
        vars: Vec<String>,
        /// What is iterated.
        iter: Expr,
        /// The body.
        body: Vec<Node>,
        /// Rendered when there is nothing to iterate.
        empty: Vec<Node>,
    },
    /// `{% set a = expr %}`, or the block form `{% set a %}…{% endset %}`.
    Set {
        /// The names set.
        names: Vec<String>,
        /// The value: an expression, or a body rendered to text.
        value: SetValue,
    },
    /// `{% macro name(params) %}…{% endmacro %}`.
    Macro {
        /// Its name.
        name: String,
        /// Parameter names with their defaults.
        params: Params,
        /// The body.
        body: Vec<Node>,
    },
    /// `{% include expr %}`.
    Include(Expr),
    /// `{% import … %}` / `{% from … import … %}`: names that come from another template.
    Import(Vec<String>),
    /// `{% filter name %}…{% endfilter %}`: the body passed through a filter.
    FilterBlock {
        /// The filter's name.
        name: String,
        /// The body.
        body: Vec<Node>,
    },
    /// Zotero Integration's `{% persist "id" %}…{% endpersist %}`: kept between imports, between
    /// `%% begin ID %%` and `%% end ID %%` lines (the id an expression: `annotation.id` gives one
    /// block per annotation).
    Persist {
        /// The block's id.
        key: Expr,
        /// What the block holds when first written.
        body: Vec<Node>,
    },
    /// A tag this reader does not interpret (`call`, `extends`, an extension's tag), with its body
    /// if it has an end tag.
    Other {
        /// The tag's name.
        tag: String,
        /// 1-based line.
        line: usize,
    },
}

/// The value of a `set`.
#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    /// `{% set a = expr %}`.
    Expr(Expr),
    /// `{% set a %}…{% endset %}`.
    Body(Vec<Node>),
}

/// An expression inside `{{ }}` or a tag.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A string literal.
    Str(String),
    /// A number literal, as written.
    Num(String),
    /// `true`, `false`.
    Bool(bool),
    /// `none`, `null`, `undefined`.
    Null,
    /// `r/pattern/flags`.
    Regex(String),
    /// A name.
    Var(String),
    /// `expr.name`.
    Attr(Box<Expr>, String),
    /// `expr[index]`.
    Index(Box<Expr>, Box<Expr>),
    /// `expr(args)`.
    Call(Box<Expr>, Vec<Expr>),
    /// `expr | name(args)`.
    Filter(Box<Expr>, String, Vec<Expr>),
    /// `not expr`, `-expr`.
    Not(Box<Expr>),
    /// A binary operator: `==`, `!=`, `<`, `in`, `and`, `or`, `~`, `+`, ….
    Binary(Box<Expr>, String, Box<Expr>),
    /// `expr is [not] test`.
    Is(Box<Expr>, String, bool),
    /// `a if cond else b`.
    Cond(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{a: b}`.
    Dict(Vec<(Expr, Expr)>),
}

/// A macro's parameters: names with their defaults.
pub type Params = Vec<(String, Option<Expr>)>;

/// Nodes read up to an end tag, and that tag (its text and line) if one was found.
type Block = (Vec<Node>, Option<(String, usize)>);

/// Why a template could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line in the template.
    pub line: usize,
    /// What was wrong, for people.
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads a Nunjucks template.
pub fn parse(source: &str) -> Result<Vec<Node>, SyntaxError> {
    let pieces = lex(source)?;
    let mut parser = Parser { pieces, at: 0 };
    let (nodes, end) = parser.nodes(&[])?;
    match end {
        None => Ok(nodes),
        Some((tag, line)) => Err(SyntaxError { line, message: format!("unexpected {{% {tag} %}}") }),
    }
}

/// A lexed piece: text, an output tag or a block tag (its inside, trimmed).
#[derive(Debug)]
enum Piece {
    Text(String),
    Output(String, usize),
    Tag(String, usize),
}

fn line_at(source: &str, pos: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &source.as_bytes()[..pos]).count()
}

/// Splits the template into text and tags, applying `-` whitespace control and `raw` blocks.
fn lex(source: &str) -> Result<Vec<Piece>, SyntaxError> {
    let mut pieces = Vec::new();
    let mut pos = 0;
    let mut trim_next = false;
    let bytes = source.as_bytes();
    let push_text = |pieces: &mut Vec<Piece>, text: &str, trim_start: bool| {
        let text = if trim_start { text.trim_start() } else { text };
        if !text.is_empty() {
            pieces.push(Piece::Text(text.to_string()));
        }
    };
    while pos < source.len() {
        let Some(open) = memchr::memchr_iter(b'{', &bytes[pos..])
            .map(|i| pos + i)
            .find(|&i| matches!(bytes.get(i + 1), Some(b'{' | b'%' | b'#')))
        else {
            push_text(&mut pieces, &source[pos..], trim_next);
            break;
        };
        let kind = bytes[open + 1];
        let mut inner_start = open + 2;
        let mut text = &source[pos..open];
        if bytes.get(inner_start) == Some(&b'-') {
            text = text.trim_end();
            inner_start += 1;
        }
        push_text(&mut pieces, text, trim_next);
        let line = line_at(source, open);
        let close_pat: &[u8] = match kind {
            b'{' => b"}}",
            b'%' => b"%}",
            _ => b"#}",
        };
        let close = find_close(source, inner_start, close_pat, kind == b'#')
            .ok_or_else(|| SyntaxError { line, message: format!("a {{{} is never closed", kind as char) })?;
        let mut inner_end = close;
        trim_next = false;
        if inner_end > inner_start && bytes[inner_end - 1] == b'-' {
            inner_end -= 1;
            trim_next = true;
        }
        let inner = source[inner_start..inner_end].trim();
        pos = close + 2;
        match kind {
            b'{' => pieces.push(Piece::Output(inner.to_string(), line)),
            b'%' => {
                let name = inner.split_whitespace().next().unwrap_or("");
                if name == "raw" || name == "verbatim" {
                    let end_tag = format!("end{name}");
                    let (body, after, trim) = raw_body(source, pos, &end_tag).ok_or_else(|| SyntaxError {
                        line,
                        message: format!("{{% {name} %}} has no {{% {end_tag} %}}"),
                    })?;
                    push_text(&mut pieces, body, trim_next);
                    pos = after;
                    trim_next = trim;
                } else {
                    pieces.push(Piece::Tag(inner.to_string(), line));
                }
            }
            _ => {}
        }
    }
    Ok(pieces)
}

/// The end of a tag: the first `close` outside string literals (comments ignore strings).
fn find_close(source: &str, from: usize, close: &[u8], comment: bool) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut i = from;
    let mut quote: Option<u8> = None;
    while i + 1 < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if !comment && (b == b'"' || b == b'\'') => quote = Some(b),
            None if b == close[0] && bytes[i + 1] == close[1] => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

/// The text of a raw block up to `{% end_tag %}`: (text, position after the end tag, trim after).
fn raw_body<'a>(source: &'a str, from: usize, end_tag: &str) -> Option<(&'a str, usize, bool)> {
    let mut search = from;
    loop {
        let open = search + source[search..].find("{%")?;
        let close = open + 2 + source[open + 2..].find("%}")?;
        let inner = source[open + 2..close].trim_matches('-').trim();
        if inner == end_tag {
            return Some((&source[from..open], close + 2, source[..close].ends_with('-')));
        }
        search = close + 2;
    }
}

struct Parser {
    pieces: Vec<Piece>,
    at: usize,
}

impl Parser {
    /// Nodes up to one of the tags in `ends` (returned with its line), or the end of input.
    fn nodes(&mut self, ends: &[&str]) -> Result<Block, SyntaxError> {
        let mut nodes = Vec::new();
        while self.at < self.pieces.len() {
            let index = self.at;
            self.at += 1;
            match &self.pieces[index] {
                Piece::Text(text) => nodes.push(Node::Text(text.clone())),
                Piece::Output(src, line) => nodes.push(Node::Output(expr(src, *line)?)),
                Piece::Tag(src, line) => {
                    let (src, line) = (src.clone(), *line);
                    let name = src.split_whitespace().next().unwrap_or("").to_string();
                    if ends.contains(&name.as_str()) {
                        return Ok((nodes, Some((src, line))));
                    }
                    nodes.push(self.tag(&name, &src, line)?);
                }
            }
        }
        Ok((nodes, None))
    }

    /// The body of a block tag up to its end tag.
    fn body(&mut self, tag: &str, line: usize) -> Result<Vec<Node>, SyntaxError> {
        let end = format!("end{tag}");
        match self.nodes(&[end.as_str()])? {
            (body, Some(_)) => Ok(body),
            (_, None) => Err(SyntaxError { line, message: format!("{{% {tag} %}} has no {{% {end} %}}") }),
        }
    }

    fn tag(&mut self, name: &str, src: &str, line: usize) -> Result<Node, SyntaxError> {
        let rest = src[name.len()..].trim();
        Ok(match name {
            "if" => self.if_chain(rest, line)?,
            "for" | "asyncEach" | "asyncAll" => self.for_loop(name, rest, line)?,
            "set" => match find_top_level(rest, '=') {
                Some(eq) => Node::Set {
                    names: names(&rest[..eq]),
                    value: SetValue::Expr(expr(&rest[eq + 1..], line)?),
                },
                None => Node::Set { names: names(rest), value: SetValue::Body(self.body("set", line)?) },
            },
            "macro" => {
                let (macro_name, params) = signature(rest, line)?;
                Node::Macro { name: macro_name, params, body: self.body("macro", line)? }
            }
            "include" => {
                let target = rest.trim_end_matches("ignore missing").trim();
                Node::Include(expr(target, line)?)
            }
            "import" => Node::Import(rest.rsplit_once(" as ").map(|(_, n)| names(n)).unwrap_or_default()),
            "from" => {
                Node::Import(rest.split_once(" import ").map(|(_, n)| import_names(n)).unwrap_or_default())
            }
            "filter" => {
                let filter = rest.split(['(', ' ']).next().unwrap_or("").to_string();
                Node::FilterBlock { name: filter, body: self.body("filter", line)? }
            }
            "persist" => Node::Persist { key: expr(rest, line)?, body: self.body("persist", line)? },
            "switch" => self.switch(rest, line)?,
            "block" => Node::FilterBlock { name: String::new(), body: self.body("block", line)? },
            "call" => {
                let _ = self.body("call", line)?;
                Node::Other { tag: name.to_string(), line }
            }
            "extends" | "endif" | "endfor" | "else" | "elif" | "elseif" | "endmacro" | "endset" => {
                return Err(SyntaxError { line, message: format!("unexpected {{% {name} %}}") });
            }
            _ => Node::Other { tag: name.to_string(), line },
        })
    }

    fn if_chain(&mut self, first: &str, line: usize) -> Result<Node, SyntaxError> {
        let mut branches = Vec::new();
        let mut cond = Some(expr(first, line)?);
        loop {
            let (body, end) = self.nodes(&["elif", "elseif", "else", "endif"])?;
            branches.push((cond.take(), body));
            let Some((tag, tag_line)) = end else {
                return Err(SyntaxError { line, message: "{% if %} has no {% endif %}".into() });
            };
            let word = tag.split_whitespace().next().unwrap_or("");
            match word {
                "endif" => return Ok(Node::If(branches)),
                "else" => {
                    let body = self.body("if", line)?;
                    branches.push((None, body));
                    return Ok(Node::If(branches));
                }
                _ => cond = Some(expr(tag[word.len()..].trim(), tag_line)?),
            }
        }
    }

    /// `{% switch x %}{% case a %}…{% default %}…{% endswitch %}` as the `if` chain it means.
    fn switch(&mut self, subject: &str, line: usize) -> Result<Node, SyntaxError> {
        let subject = expr(subject, line)?;
        let (_, mut end) = self.nodes(&["case", "default", "endswitch"])?;
        let mut branches = Vec::new();
        loop {
            let Some((tag, tag_line)) = end else {
                return Err(SyntaxError { line, message: "{% switch %} has no {% endswitch %}".into() });
            };
            let word = tag.split_whitespace().next().unwrap_or("");
            let cond = match word {
                "endswitch" => return Ok(Node::If(branches)),
                "default" => None,
                _ => Some(Expr::Binary(
                    Box::new(subject.clone()),
                    "==".into(),
                    Box::new(expr(tag[word.len()..].trim(), tag_line)?),
                )),
            };
            let (body, next) = self.nodes(&["case", "default", "endswitch"])?;
            branches.push((cond, body));
            end = next;
        }
    }

    fn for_loop(&mut self, name: &str, rest: &str, line: usize) -> Result<Node, SyntaxError> {
        let Some((vars, iter)) = split_keyword(rest, "in") else {
            return Err(SyntaxError {
                line,
                message: format!("{{% {name} {rest} %}} is not `for x in items`"),
            });
        };
        let iter = expr(iter, line)?;
        let end = if name == "for" { "endfor".to_string() } else { format!("end{name}") };
        let (body, stop) = self.nodes(&["else", end.as_str()])?;
        let empty = match stop {
            Some((tag, _)) if tag == "else" => self.body(if name == "for" { "for" } else { name }, line)?,
            Some(_) => Vec::new(),
            None => {
                return Err(SyntaxError { line, message: format!("{{% {name} %}} has no {{% {end} %}}") });
            }
        };
        Ok(Node::For { vars: names(vars), iter, body, empty })
    }
}

fn names(s: &str) -> Vec<String> {
    s.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect()
}

fn import_names(s: &str) -> Vec<String> {
    s.split(',')
        .map(|n| n.rsplit_once(" as ").map_or(n, |(_, alias)| alias).trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// `name(a, b=1)` → the name and its parameters.
fn signature(s: &str, line: usize) -> Result<(String, Params), SyntaxError> {
    let (name, params) = s.split_once('(').unwrap_or((s, ")"));
    let params = params.trim().strip_suffix(')').unwrap_or(params);
    let mut out = Vec::new();
    for param in split_top_level(params, ',') {
        match find_top_level(param, '=') {
            Some(eq) => out.push((param[..eq].trim().to_string(), Some(expr(&param[eq + 1..], line)?))),
            None if !param.trim().is_empty() => out.push((param.trim().to_string(), None)),
            None => {}
        }
    }
    Ok((name.trim().to_string(), out))
}

/// `vars in iter` split at the keyword outside strings and brackets.
fn split_keyword<'a>(s: &'a str, keyword: &str) -> Option<(&'a str, &'a str)> {
    let tokens = tokenize(s, 0).ok()?;
    let at = tokens.iter().position(|t| t.kind == Tok::Name && t.text == keyword)?;
    let start = tokens[at].start;
    Some((&s[..start], &s[start + keyword.len()..]))
}

/// The byte offset of `c` (alone: not part of `==`, `!=`, `<=`, `>=`) outside strings and brackets.
fn find_top_level(s: &str, c: char) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0i32;
    let mut quote = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'"' | b'\'' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                _ if depth == 0 && b == c as u8 => {
                    let prev = i.checked_sub(1).map(|p| bytes[p]);
                    let next = bytes.get(i + 1).copied();
                    let compound =
                        c == '=' && (matches!(prev, Some(b'=' | b'!' | b'<' | b'>')) || next == Some(b'='));
                    if !compound {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

fn split_top_level(s: &str, c: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s;
    while let Some(i) = find_top_level(rest, c) {
        parts.push(&rest[..i]);
        rest = &rest[i + 1..];
    }
    parts.push(rest);
    parts
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Name,
    Str,
    Num,
    Regex,
    Op,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Tok,
    text: String,
    start: usize,
}

const OPERATORS: [&str; 28] = [
    "===", "!==", "==", "!=", "<=", ">=", "//", "**", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ":",
    ".", "|", "~", "+", "-", "*", "/", "%", "<", ">",
];

fn tokenize(src: &str, line: usize) -> Result<Vec<Token>, SyntaxError> {
    let mut tokens = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    let err = |message: String| SyntaxError { line, message };
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with('\u{a0}') {
            // Nunjucks' lexer counts the no-break space as white space (an editor's paste).
            i += '\u{a0}'.len_utf8();
        } else if src[i..].starts_with('“') {
            // Curly quotes (a word processor's): not Nunjucks, but read as the string they mean.
            let body = &src[i + '“'.len_utf8()..];
            let close = body.find('”').ok_or_else(|| err(format!("unclosed string in `{src}`")))?;
            tokens.push(Token { kind: Tok::Str, text: body[..close].to_string(), start: i });
            i += '“'.len_utf8() + close + '”'.len_utf8();
        } else if b == b'"' || b == b'\'' {
            let (text, end) =
                string_literal(src, i).ok_or_else(|| err(format!("unclosed string in `{src}`")))?;
            tokens.push(Token { kind: Tok::Str, text, start: i });
            i = end;
        } else if b == b'r' && bytes.get(i + 1) == Some(&b'/') {
            let body = &src[i + 2..];
            let close = body.find('/').ok_or_else(|| err(format!("unclosed regex in `{src}`")))?;
            let flags_end = body[close + 1..]
                .find(|c: char| !c.is_ascii_alphabetic())
                .map_or(body.len(), |f| close + 1 + f);
            tokens.push(Token { kind: Tok::Regex, text: body[..close].to_string(), start: i });
            i += 2 + flags_end;
        } else if b.is_ascii_digit() {
            let len = src[i..].find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(src.len() - i);
            tokens.push(Token { kind: Tok::Num, text: src[i..i + len].to_string(), start: i });
            i += len;
        } else if b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80 {
            let len = src[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(src.len() - i);
            if len == 0 {
                let c = src[i..].chars().next().unwrap_or(' ');
                return Err(err(format!("unexpected character {c:?} in `{src}`")));
            }
            tokens.push(Token { kind: Tok::Name, text: src[i..i + len].to_string(), start: i });
            i += len;
        } else if let Some(op) = OPERATORS.iter().find(|op| src[i..].starts_with(**op)) {
            tokens.push(Token { kind: Tok::Op, text: op.to_string(), start: i });
            i += op.len();
        } else if b == b'!' || b == b'=' {
            // A lone `!` (JavaScript's not) or `=` (a keyword argument).
            tokens.push(Token { kind: Tok::Op, text: (b as char).to_string(), start: i });
            i += 1;
        } else {
            return Err(err(format!("unexpected character {:?} in `{src}`", b as char)));
        }
    }
    Ok(tokens)
}

/// A quoted string starting at `start`, with escapes read; returns it and the position after it.
fn string_literal(src: &str, start: usize) -> Option<(String, usize)> {
    let quote = src.as_bytes()[start] as char;
    let mut out = String::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                other => out.push(other),
            },
            c if c == quote => return Some((out, start + 1 + i + 1)),
            c => out.push(c),
        }
    }
    None
}

/// Parses one expression.
pub fn expr(src: &str, line: usize) -> Result<Expr, SyntaxError> {
    let tokens = tokenize(src, line)?;
    let mut p = ExprParser { tokens, at: 0, line, src };
    let e = p.inline_if()?;
    if p.at < p.tokens.len() {
        return Err(p.error("unexpected text"));
    }
    Ok(e)
}

struct ExprParser<'a> {
    tokens: Vec<Token>,
    at: usize,
    line: usize,
    src: &'a str,
}

impl ExprParser<'_> {
    fn error(&self, what: &str) -> SyntaxError {
        let near = self.tokens.get(self.at).map_or("the end".to_string(), |t| format!("`{}`", t.text));
        SyntaxError { line: self.line, message: format!("{what} at {near} in `{}`", self.src.trim()) }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn is(&self, kind: Tok, text: &str) -> bool {
        self.peek().is_some_and(|t| t.kind == kind && t.text == text)
    }

    fn eat(&mut self, kind: Tok, text: &str) -> bool {
        let yes = self.is(kind, text);
        if yes {
            self.at += 1;
        }
        yes
    }

    fn expect(&mut self, text: &str) -> Result<(), SyntaxError> {
        if self.eat(Tok::Op, text) { Ok(()) } else { Err(self.error(&format!("expected `{text}`"))) }
    }

    fn inline_if(&mut self) -> Result<Expr, SyntaxError> {
        let then = self.or()?;
        if self.eat(Tok::Name, "if") {
            let cond = self.or()?;
            let otherwise =
                if self.eat(Tok::Name, "else") { Some(Box::new(self.inline_if()?)) } else { None };
            return Ok(Expr::Cond(Box::new(then), Box::new(cond), otherwise));
        }
        Ok(then)
    }

    fn or(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.and()?;
        while self.eat(Tok::Name, "or") || self.eat(Tok::Op, "||") {
            left = Expr::Binary(Box::new(left), "or".into(), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.not()?;
        while self.eat(Tok::Name, "and") || self.eat(Tok::Op, "&&") {
            left = Expr::Binary(Box::new(left), "and".into(), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, SyntaxError> {
        if self.eat(Tok::Name, "not") || self.eat(Tok::Op, "!") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.concat()?;
        loop {
            if self.eat(Tok::Name, "is") {
                let negated = self.eat(Tok::Name, "not");
                let test = match self.peek() {
                    Some(t) if t.kind == Tok::Name => t.text.clone(),
                    _ => return Err(self.error("expected a test name")),
                };
                self.at += 1;
                // Tests with an argument (`divisibleby(3)`, `equalto x`): read and drop it.
                if self.is(Tok::Op, "(") {
                    self.postfix(Expr::Null)?;
                }
                left = Expr::Is(Box::new(left), test, negated);
                continue;
            }
            let op = match self.peek() {
                Some(t)
                    if t.kind == Tok::Op
                        && ["==", "===", "!=", "!==", "<", ">", "<=", ">="].contains(&t.text.as_str()) =>
                {
                    t.text.clone()
                }
                Some(t) if t.kind == Tok::Name && t.text == "in" => "in".to_string(),
                Some(t)
                    if t.kind == Tok::Name
                        && t.text == "not"
                        && self.tokens.get(self.at + 1).is_some_and(|n| n.text == "in") =>
                {
                    self.at += 1;
                    "not in".to_string()
                }
                _ => return Ok(left),
            };
            self.at += 1;
            let op = match op.as_str() {
                "===" => "==".to_string(),
                "!==" => "!=".to_string(),
                _ => op,
            };
            left = Expr::Binary(Box::new(left), op, Box::new(self.concat()?));
        }
    }

    fn concat(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.sum()?;
        while self.eat(Tok::Op, "~") {
            left = Expr::Binary(Box::new(left), "~".into(), Box::new(self.sum()?));
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.product()?;
        loop {
            let op = if self.eat(Tok::Op, "+") {
                "+"
            } else if self.eat(Tok::Op, "-") {
                "-"
            } else {
                return Ok(left);
            };
            left = Expr::Binary(Box::new(left), op.into(), Box::new(self.product()?));
        }
    }

    fn product(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.unary()?;
        loop {
            let op = ["*", "/", "//", "%", "**"].into_iter().find(|op| self.is(Tok::Op, op));
            let Some(op) = op else { return Ok(left) };
            self.at += 1;
            left = Expr::Binary(Box::new(left), op.into(), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        if self.eat(Tok::Op, "-") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat(Tok::Op, "+") {
            return self.unary();
        }
        let primary = self.primary()?;
        let mut e = self.postfix(primary)?;
        while self.eat(Tok::Op, "|") {
            let name = match self.peek() {
                Some(t) if t.kind == Tok::Name => t.text.clone(),
                _ => return Err(self.error("expected a filter name")),
            };
            self.at += 1;
            let args = if self.is(Tok::Op, "(") { self.args()? } else { Vec::new() };
            e = self.postfix(Expr::Filter(Box::new(e), name, args))?;
        }
        Ok(e)
    }

    fn postfix(&mut self, mut e: Expr) -> Result<Expr, SyntaxError> {
        loop {
            if self.eat(Tok::Op, ".") {
                match self.peek() {
                    Some(t) if t.kind == Tok::Name || t.kind == Tok::Num => {
                        e = Expr::Attr(Box::new(e), t.text.clone());
                        self.at += 1;
                    }
                    _ => return Err(self.error("expected a name after `.`")),
                }
            } else if self.is(Tok::Op, "[") {
                self.at += 1;
                let index = self.inline_if()?;
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(index));
            } else if self.is(Tok::Op, "(") {
                e = Expr::Call(Box::new(e), self.args()?);
            } else {
                return Ok(e);
            }
        }
    }

    /// `(a, b, name=c)`: keyword arguments are kept as their values.
    fn args(&mut self) -> Result<Vec<Expr>, SyntaxError> {
        self.expect("(")?;
        let mut args = Vec::new();
        while !self.eat(Tok::Op, ")") {
            if self.peek().is_some_and(|t| t.kind == Tok::Name)
                && self.tokens.get(self.at + 1).is_some_and(|t| t.kind == Tok::Op && t.text == "=")
            {
                self.at += 2;
            }
            args.push(self.inline_if()?);
            if !self.eat(Tok::Op, ",") {
                self.expect(")")?;
                break;
            }
        }
        Ok(args)
    }

    fn primary(&mut self) -> Result<Expr, SyntaxError> {
        let Some(token) = self.peek().cloned() else { return Err(self.error("expected a value")) };
        self.at += 1;
        Ok(match token.kind {
            Tok::Str => {
                // Adjacent string literals concatenate.
                let mut s = token.text;
                while let Some(next) = self.peek().filter(|t| t.kind == Tok::Str) {
                    s.push_str(&next.text);
                    self.at += 1;
                }
                Expr::Str(s)
            }
            Tok::Num => Expr::Num(token.text),
            Tok::Regex => Expr::Regex(token.text),
            Tok::Name => match token.text.as_str() {
                "true" | "True" => Expr::Bool(true),
                "false" | "False" => Expr::Bool(false),
                "none" | "None" | "null" | "undefined" => Expr::Null,
                _ => Expr::Var(token.text),
            },
            Tok::Op if token.text == "(" => {
                // `(a, b)`: JavaScript's comma operator, used to call `push` in an expression:
                // each part is evaluated, the last one is the value.
                let mut e = self.inline_if()?;
                while self.eat(Tok::Op, ",") {
                    e = Expr::Binary(Box::new(e), ",".into(), Box::new(self.inline_if()?));
                }
                self.expect(")")?;
                e
            }
            Tok::Op if token.text == "[" => {
                let mut items = Vec::new();
                while !self.eat(Tok::Op, "]") {
                    items.push(self.inline_if()?);
                    if !self.eat(Tok::Op, ",") {
                        self.expect("]")?;
                        break;
                    }
                }
                Expr::List(items)
            }
            Tok::Op if token.text == "{" => {
                let mut items = Vec::new();
                while !self.eat(Tok::Op, "}") {
                    let key = self.inline_if()?;
                    self.expect(":")?;
                    items.push((key, self.inline_if()?));
                    if !self.eat(Tok::Op, ",") {
                        self.expect("}")?;
                        break;
                    }
                }
                Expr::Dict(items)
            }
            _ => {
                self.at -= 1;
                return Err(self.error("unexpected operator"));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(path: &str) -> Expr {
        let mut parts = path.split('.');
        let mut e = Expr::Var(parts.next().unwrap().to_string());
        for p in parts {
            e = Expr::Attr(Box::new(e), p.to_string());
        }
        e
    }

    #[test]
    fn loops_conditions_and_whitespace_control() {
        let t = "A\n{%- for a in annotations %}\n> {{a.annotatedText}}\n{% if a.comment -%}\n  {{ a.comment | nl2br }}\n{%- endif %}{% endfor %}";
        let nodes = parse(t).unwrap();
        assert_eq!(nodes[0], Node::Text("A".into()));
        let Node::For { vars, iter, body, .. } = &nodes[1] else { panic!("{nodes:?}") };
        assert_eq!(vars, &["a"]);
        assert_eq!(iter, &Expr::Var("annotations".into()));
        assert_eq!(body[0], Node::Text("\n> ".into()));
        assert_eq!(body[1], Node::Output(var("a.annotatedText")));
        let Node::If(branches) = &body[3] else { panic!("{body:?}") };
        assert_eq!(branches[0].0, Some(var("a.comment")));
        assert_eq!(
            branches[0].1,
            vec![Node::Output(Expr::Filter(Box::new(var("a.comment")), "nl2br".into(), vec![]))]
        );
    }

    #[test]
    fn a_no_break_space_in_a_tag_is_white_space() {
        let e = expr("date\u{a0}| format\u{a0}(\"YYYY\")", 1).unwrap();
        assert!(matches!(e, Expr::Filter(..)), "{e:?}");
    }

    #[test]
    fn expressions_in_the_wild() {
        let e = expr(r#"annotation.attachment.desktopURI.replace("select", "open-pdf")"#, 1).unwrap();
        assert!(matches!(e, Expr::Call(..)));
        let e = expr(r#"annotations | filterby("date", "dateafter", lastImportDate)"#, 1).unwrap();
        assert!(matches!(e, Expr::Filter(_, ref f, ref args) if f == "filterby" && args.len() == 3));
        let e = expr(r#"a.colorCategory === "Red" and not a.comment"#, 1).unwrap();
        assert!(matches!(e, Expr::Binary(_, ref op, _) if op == "and"));
        let e = expr(r#"a.annotatedText | replace(r/\n/g, " ") | trim"#, 1).unwrap();
        assert!(matches!(e, Expr::Filter(_, ref f, _) if f == "trim"));
        let e = expr(r#""x" if a.type == 'image' else "y""#, 1).unwrap();
        assert!(matches!(e, Expr::Cond(..)));
        assert!(expr("a.tags.length > 0 && loop.first", 1).is_ok());
        assert!(expr("a is defined and a is not none", 1).is_ok());
    }

    #[test]
    fn macros_sets_raw_persist_and_errors() {
        let t = "{% macro calloutHeader(type, color) -%}[!{{type}}]{%- endmacro %}{% set n = 3 %}{% set b %}x{% endset %}{% raw %}{{not}}{% endraw %}{% persist \"annotations\" %}y{% endpersist %}";
        let nodes = parse(t).unwrap();
        assert!(
            matches!(&nodes[0], Node::Macro { name, params, .. } if name == "calloutHeader" && params.len() == 2)
        );
        assert!(matches!(&nodes[1], Node::Set { value: SetValue::Expr(_), .. }));
        assert!(matches!(&nodes[2], Node::Set { value: SetValue::Body(_), .. }));
        assert_eq!(nodes[3], Node::Text("{{not}}".into()));
        assert!(matches!(&nodes[4], Node::Persist { body, .. } if body == &vec![Node::Text("y".into())]));
        let err = parse("a\n{% if x %}b").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("endif"), "{err}");
        assert!(parse("{{ a.b( }}").is_err());
        assert_eq!(
            expr("format(“YYYY”)", 1).unwrap(),
            Expr::Call(Box::new(Expr::Var("format".into())), vec![Expr::Str("YYYY".into())])
        );
        let switch = parse("{% switch t %}{% case \"image\" %}I{% default %}N{% endswitch %}").unwrap();
        assert!(matches!(&switch[0], Node::If(b) if b.len() == 2 && b[1].0.is_none()));
        assert!(expr("(list.push(x), list)", 1).is_ok());
    }
}
