// The console's entry point: sign-in (development sign-in or a pasted token), then the member
// view and, for tokens of the operator group, the operator view.
import { api, claims, clearToken, setToken, token } from './api.js';
import { h, fill, describe, say } from './ui.js';
import * as member from './member.js';
import * as operator from './operator.js';

const $ = id => document.getElementById(id);
let isOperator = false;

function show(view) {
  for (const v of ['signin-view', 'member-view', 'operator-view']) $(v).hidden = v !== view;
  $('nav-member').setAttribute('aria-pressed', String(view === 'member-view'));
  $('nav-operator').setAttribute('aria-pressed', String(view === 'operator-view'));
  if (view === 'operator-view') operator.mount($('operator-view'));
  else operator.unmount();
}

async function signIn() {
  const c = claims();
  if (!c) {
    signedOut();
    return;
  }
  isOperator = Array.isArray(c.groups) && c.groups.includes('operator');
  try {
    const me = await api('/api/v1/me');
    fill($('who'), 'Signed in as ', h('strong#who-name', me.displayName || me.username));
    $('nav').hidden = false;
    $('nav-operator').hidden = !isOperator;
    $('sign-out').hidden = false;
    member.mount($('member-view'), me);
    show(isOperator && !me.memberships.length ? 'operator-view' : 'member-view');
  } catch (e) {
    clearToken();
    signedOut();
    say('Sign-in failed: ' + describe(e), true);
  }
}

function signedOut() {
  member.unmount();
  operator.unmount();
  fill($('who'));
  $('nav').hidden = true;
  $('sign-out').hidden = true;
  fill($('member-view'));
  fill($('operator-view'));
  show('signin-view');
  loadDevUsers();
}

async function loadDevUsers() {
  const res = await fetch('/api/v1/dev-login/users', { headers: { Accept: 'application/json' }, cache: 'no-store' })
    .catch(() => null);
  if (!res || !res.ok) {
    $('dev-login').hidden = true; // off on this server: paste a token
    return;
  }
  const { items } = await res.json();
  fill($('dev-users'), items.map(u => h('li', h('button.dev-user#dev-user-' + u.username, {
    type: 'button', onclick: () => devSignIn(u.username),
  }, h('strong', u.username), ' — ', u.displayName, u.operator ? ' · operator' : '', u.teams ? h('small', ' · ' + u.teams) : ''))));
  $('dev-login').hidden = false;
}

async function devSignIn(username) {
  try {
    const r = await api('/api/v1/dev-login/token', { method: 'POST', body: { username } });
    setToken(r.token);
    signIn();
  } catch (e) {
    say(describe(e), true);
  }
}

$('token-form').addEventListener('submit', e => {
  e.preventDefault();
  const t = $('token-input').value.trim().replace(/^Bearer\s+/i, '');
  $('token-input').value = '';
  setToken(t);
  signIn();
});
$('sign-out').addEventListener('click', () => {
  clearToken();
  signedOut();
  say('Signed out.');
});
$('nav-member').addEventListener('click', () => show('member-view'));
$('nav-operator').addEventListener('click', () => show('operator-view'));

if (token()) signIn();
else signedOut();
