import * as vscode from 'vscode';
import { Action, initialState, reduce, State } from './agentState';

/** The one State of the Agent panel and the status bar, changed only through dispatch. */
export class Store implements vscode.Disposable {
  private current: State = initialState();
  private readonly emitter = new vscode.EventEmitter<State>();
  readonly onDidChange = this.emitter.event;

  get state(): State {
    return this.current;
  }

  dispatch(action: Action): void {
    this.current = reduce(this.current, action);
    this.emitter.fire(this.current);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
