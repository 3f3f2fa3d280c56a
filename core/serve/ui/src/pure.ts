// memo() without preact/compat: re-render only when a prop changed (shallow).
import { Component, h, type ComponentType } from "preact";

export function pure<P extends object>(Inner: ComponentType<P>): ComponentType<P> {
  return class Pure extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      const a = this.props as Record<string, unknown>;
      const b = next as Record<string, unknown>;
      for (const k in b) if (k !== "children" && a[k] !== b[k]) return true;
      for (const k in a) if (!(k in b)) return true;
      return false;
    }
    override render() {
      return h(Inner, this.props);
    }
  };
}
