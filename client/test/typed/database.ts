// The shape `GET /admin/types` generates (see ../typed.test.ts, which also compiles the server's real output).
export type Json = string | number | boolean | null | { [key: string]: Json } | Json[];

export interface Database {
  todos: {
    Row: {
      id: string;
      createdAt: string;
      updatedAt: string;
      title: string;
      done: boolean;
      score: number | null;
      due: string | null;
      meta: Json | null;
      user_id: string;
    };
    Insert: {
      id?: string;
      title: string;
      done?: boolean;
      score?: number | null;
      due?: string | null;
      meta?: Json | null;
      user_id?: string;
    };
    Update: {
      id?: string;
      title?: string;
      done?: boolean;
      score?: number | null;
      due?: string | null;
      meta?: Json | null;
      user_id?: string;
    };
    Relationships: {
      tags: { kind: 'many'; table: 'tags'; column: 'todo_id' };
    };
  };
  tags: {
    Row: { id: string; createdAt: string; updatedAt: string; name: string; todo_id: string | null };
    Insert: { id?: string; name: string; todo_id?: string | null };
    Update: { id?: string; name?: string; todo_id?: string | null };
    Relationships: {
      todo: { kind: 'one'; table: 'todos'; column: 'todo_id' };
    };
  };
}
