// Source files in each language code_index reads, and the outline each must
// give (`line: kind name`, members indented). Strings, not files, so the
// project's typecheck and lint never see them as code.

export const TS_SOURCE = `import { x } from "y";
export class Engine<T> extends Base implements Runner {
  private count = 0;
  constructor(readonly name: string) { super(); }
  async run(input: T): Promise<void> {}
  static create(): Engine<string> { return new Engine("x"); }
}
export abstract class Shape { abstract area(): number; }
export interface Runner { run(input: unknown): Promise<void>; readonly id: string }
export type Handler = (e: Event) => void;
export enum Color { Red, Green }
export function helper(a: number): number {
  const inner = () => 1;
  return a + inner();
}
export const arrow = (x: number) => x * 2;
export const LIMIT = 10;
let counter = 0;
export default function main() {}
namespace Inner { export function deep() {} }
`;

export const TS_OUTLINE = [
  "2: class Engine",
  "3:   property count",
  "4:   method constructor",
  "5:   method run",
  "6:   method create",
  "8: class Shape",
  "8:   method area",
  "9: interface Runner",
  "9:   method run",
  "9:   property id",
  "10: type Handler",
  "11: enum Color",
  "12: function helper",
  "16: function arrow",
  "17: const LIMIT",
  "18: variable counter",
  "19: function main",
  "20: namespace Inner",
  "20:   function deep",
];

export const TSX_SOURCE = `export function Button(props: { label: string }) {
  return <button>{props.label}</button>;
}
export class Panel extends Component { render() { return <div />; } }
`;

export const TSX_OUTLINE = ["1: function Button", "4: class Panel", "4:   method render"];

export const JS_SOURCE = `class Store {
  get(key) { return this.map[key]; }
}
function makeStore() { return new Store(); }
const render = () => <App />;
module.exports = { makeStore };
`;

export const JS_OUTLINE = ["1: class Store", "2:   method get", "4: function makeStore", "5: function render"];

export const PY_SOURCE = `import os
MAX = 3

class Animal(Base):
    kind = "x"

    def __init__(self, name):
        self.name = name

    @property
    def label(self):
        return self.name

    async def speak(self):
        pass

    class Inner:
        def deep(self):
            pass

@decorator
def top_level(a, b=1):
    def nested():
        pass
    return a

async def fetch_all():
    pass
`;

export const PY_OUTLINE = [
  "2: variable MAX",
  "4: class Animal",
  "5:   property kind",
  "7:   method __init__",
  "11:   method label",
  "14:   method speak",
  "17:   class Inner",
  "18:     method deep",
  "22: function top_level",
  "27: function fetch_all",
];

export const GO_SOURCE = `package main

import "fmt"

const Max = 10

var global = 1

type Server struct {
	Addr string
}

type Handler interface {
	Serve(req string) error
}

type ID = int

func NewServer(addr string) *Server {
	return &Server{Addr: addr}
}

func (s *Server) Start() error {
	fmt.Println("start")
	return nil
}

func (b *Box[T]) Get() T { return b.v }
`;

export const GO_OUTLINE = [
  "5: const Max",
  "7: variable global",
  "9: struct Server",
  "13: interface Handler",
  "14:   method Serve",
  "17: type ID",
  "19: function NewServer",
  "23: method Server.Start",
  "28: method Box.Get",
];

export const RS_SOURCE = `use std::fmt;

pub const MAX: usize = 10;

pub struct Point {
    x: i32,
    y: i32,
}

pub enum Shape {
    Circle,
    Square,
}

pub trait Draw {
    fn draw(&self);
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Ok(())
    }
}

pub fn free_fn() {}

mod inner {
    pub fn deep() {}
}

type Alias = Vec<i32>;

macro_rules! my_macro {
    () => {};
}
`;

export const RS_OUTLINE = [
  "3: const MAX",
  "5: struct Point",
  "10: enum Shape",
  "15: trait Draw",
  "16:   method draw",
  "19: impl Point",
  "20:   method new",
  "25: impl fmt::Display for Point",
  "26:   method fmt",
  "31: function free_fn",
  "33: module inner",
  "34:   function deep",
  "37: type Alias",
  "39: macro my_macro",
];
