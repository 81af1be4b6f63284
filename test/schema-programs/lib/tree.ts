/** A tree of values of one type. */
export interface Tree<T> {
  /** The value at this node. */
  value: T;
  /** Subtrees. */
  children: Array<Tree<T>>;
}

/** A person; their department lists people again (mutual recursion). */
export interface Person {
  /** Name. */
  name: string;
  /** Department, if any. */
  department?: Department;
}

/** A department and its staff. */
export interface Department {
  /** Name. */
  name: string;
  /** Who works there. */
  staff: Person[];
}
