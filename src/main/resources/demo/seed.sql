-- TeamDesk demo data: 8 users (ops: an operator, member of no team), 2 teams, their memberships, 3000 tickets in team "demo"
-- and 6 in team "other".
--
-- Idempotent: every id is fixed or derived from md5 of a fixed string, and every INSERT
-- ends in ON CONFLICT DO NOTHING, so a second run changes nothing (rows that a person
-- changed through the API since are left as they are).
--
-- Needs the schema (Flyway V1) first. Runs unchanged under
--   psql -v ON_ERROR_STOP=1 --single-transaction -f seed.sql
-- and through a JDBC Statement, one statement at a time: plain SQL only (no psql
-- meta-commands, no dollar quoting), every statement ends with a semicolon at the end
-- of a line, and no string literal or comment contains a semicolon.
--
-- Tickets mix English and Chinese, emoji, commas, double quotes and line breaks (LF and
-- a few CRLF) in bodies, and a few titles that a spreadsheet would read as a formula
-- (=SUM(A1:A2), +1 ..., -5% ..., @channel, tab-leading): export data for R13.
-- created_at is spread over the 90 days before the seed ran, updated_at >= created_at.

-- Fixed ids (tests and ./teamdesk token rely on them).
INSERT INTO app_user (id, username, display_name) VALUES
    ('05e40000-0000-4000-8000-000000000001', 'ada',  'Ada Lovelace'),
    ('05e40000-0000-4000-8000-000000000002', 'ben',  'Ben Carter'),
    ('05e40000-0000-4000-8000-000000000003', 'chen', 'Chen Jing'),
    ('05e40000-0000-4000-8000-000000000004', 'dana', 'Dana Whitfield'),
    ('05e40000-0000-4000-8000-000000000005', 'eli',  'Eli Navarro'),
    ('05e40000-0000-4000-8000-000000000006', 'fang', 'Fang Li'),
    ('05e40000-0000-4000-8000-000000000007', 'zed',  'Zed Okafor'),
    ('05e40000-0000-4000-8000-000000000008', 'ops',  'Ops On Call')
ON CONFLICT DO NOTHING;

-- Issue 54: the demo users' email addresses (a reserved test domain: ./teamdesk up's local mail catcher takes them);
-- an address set later (PUT /api/v1/me/email-settings) is kept.
UPDATE app_user SET email = username || '@demo.teamdesk.test'
WHERE id::text LIKE '05e40000-0000-4000-8000-00000000000_' AND email IS NULL;

INSERT INTO team (id, slug, name) VALUES
    ('7ea40000-0000-4000-8000-000000000001', 'demo',  'Demo Support'),
    ('7ea40000-0000-4000-8000-000000000002', 'other', 'Other Co')
ON CONFLICT DO NOTHING;

INSERT INTO membership (team_id, user_id, role) VALUES
    ('7ea40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000001', 'OWNER'),
    ('7ea40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000002', 'STAFF'),
    ('7ea40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000003', 'STAFF'),
    ('7ea40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000004', 'CUSTOMER'),
    ('7ea40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000005', 'CUSTOMER'),
    ('7ea40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000006', 'CUSTOMER'),
    ('7ea40000-0000-4000-8000-000000000002', '05e40000-0000-4000-8000-000000000007', 'OWNER')
ON CONFLICT DO NOTHING;

-- 3000 tickets of team demo. Ticket i has id md5('demo-ticket-' || i)::uuid, and its
-- pseudo-random choices come from the 16 bytes of md5('demo-ticket-rand-' || i)
-- (byte k = get_byte(r, k)), so every run derives the same ticket from the same i.
INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id,
                    created_at, updated_at, version)
WITH p AS (
    SELECT
        ARRAY[
            'Cannot log in after password reset',
            'Invoice for March shows the wrong VAT number',
            'App crashes when uploading a photo',
            'Refund not received yet',
            'How do I export my order history?',
            'Two-factor code never arrives by SMS',
            'Shipping address won''t save',
            'Charged twice for the same order',
            'Dark mode makes buttons unreadable',
            'Request: add a "Mark all as read" button',
            'Password reset link expired',
            'Order stuck in "processing"',
            'Can''t change my e-mail address',
            'Discount code SPRING10 rejected at checkout',
            'Search returns no results for accented names (José, Zoë)',
            'Report page is very slow, takes 30s or more',
            'Need a copy of the signed contract',
            'Delivery arrived damaged, box crushed',
            'Notifications arrive twice',
            'Account locked after 3 attempts',
            'Please cancel my subscription',
            'Calendar sync with Outlook stopped working',
            'CSV import fails on line 42',
            'Wrong time zone in e-mail receipts',
            'Feature request: keyboard shortcuts',
            'Mobile app stuck on splash screen',
            'Payment page says "Card declined", bank says it''s fine',
            'Upgrade to Pro plan, billing question',
            'Data missing after last update',
            'Printer says "paper jam", but the tray is empty'
        ] AS en_title,
        ARRAY[
            '无法登录账户',
            '发票抬头开错了，需要重开',
            '退款一直没有到账',
            '手机App上传图片时闪退',
            '订单一直显示"处理中"',
            '收不到短信验证码',
            '如何导出历史订单？',
            '同一笔订单被扣款两次',
            '修改收货地址后没有保存',
            '优惠码无法使用',
            '页面加载很慢，请帮忙看看',
            '申请取消自动续费',
            '希望增加批量操作功能',
            '快递外包装破损，商品有划痕',
            '账户被锁定，无法解锁',
            '邮件通知重复发送',
            '报表里的数据对不上',
            '日历同步失败',
            '升级专业版后功能没有开通',
            '密码重置链接已失效',
            '搜索中文名称没有结果',
            '导入 Excel 文件报错',
            '客服电话一直打不通',
            '想修改绑定的手机号',
            '夜间模式下按钮看不清',
            '更新后数据丢失了',
            '合同盖章版本什么时候寄出？',
            '发货时间比承诺晚了一周',
            '请帮忙开具增值税专用发票',
            '会员积分没有到账'
        ] AS zh_title,
        ARRAY['', '', '', '', '', '', ' 🙏', ' (urgent)', ' - second request', ', again',
              ' 😡', ' [VIP]', ' 🔥', ' ✅?'] AS en_suffix,
        ARRAY['', '', '', '', '', '', '（加急）', '（第二次反馈）', ' 🙏', ' 😭', '，急！',
              ' [VIP]'] AS zh_suffix,
        ARRAY['Hi team,', 'Hello,', 'Dear support,', 'Hey there 👋', 'Good morning,',
              'Hi,'] AS en_greet,
        ARRAY[
            'Since yesterday I get the message "Something went wrong, please try again" every time.',
            'Steps: 1) open the app, 2) tap Orders, 3) it spins forever.',
            'I already tried clearing the cache, logging out and back in, and a different browser.',
            'Order number is #A-10293, placed on the 3rd.',
            'My colleague sees the same thing, so it is not just my laptop.',
            'The error code shown is E-4012 ("timeout").',
            'Screenshot attached. Happens on Chrome and Safari, not on Firefox.',
            'This is blocking our month-end close, please prioritise.',
            'Amount: $1,249.00, charged on 2 cards.',
            'It worked fine until the update last Tuesday.',
            'Our account manager said this would be fixed "within a week", that was a month ago.',
            'Could you also check whether the other invoices (April, May) are affected?',
            'We have about 1,200 users on this plan, so a workaround would help a lot.',
            'The page shows "0 results" even though I can see the records in the list.',
            'I''m on iOS 17.4, app version 5.2.1 (build 8810).'
        ] AS en_detail,
        ARRAY['Thanks!', E'Best regards,\nMaria', 'Cheers 🙂', 'Thank you in advance.',
              E'Kind regards,\nJ. Smith\nAcme Ltd.', E'--\nSent from my phone'] AS en_close,
        ARRAY['您好，', '你好！', '客服您好：', '麻烦帮忙看一下：', 'Hi，'] AS zh_greet,
        ARRAY[
            '从昨天开始每次打开都提示"网络错误，请稍后重试"。',
            '订单号：20240315-8812，金额 ¥1,299.00。',
            '已经尝试清除缓存、重新登录，还是不行。',
            '同事的电脑上也是一样的问题。',
            '截图见附件，使用的是 iPhone 15。',
            '这个问题影响到我们月底结账，请尽快处理 🙏',
            '上周更新之后就出现了，之前一直正常。',
            '我们公司有 200 多个账号，都受到影响。',
            '页面显示"暂无数据"，但列表里明明有记录。',
            '能否告诉我大概什么时候可以修复？',
            '客服说会在三个工作日内回复，现在已经一周了。',
            '另外，四月和五月的发票也有同样的问题吗？'
        ] AS zh_detail,
        ARRAY['谢谢！', '辛苦了。', '期待回复，谢谢 😊', E'此致\n敬礼\n王先生', '多谢 🙏'] AS zh_close,
        ARRAY[
            '=SUM(A1:A2)',
            '+1 call back tomorrow',
            '-5% refund on the last invoice',
            '@channel outage in EU region',
            E'\tTab-leading title pasted from a spreadsheet',
            '=HYPERLINK("https://example.com/?q=1","click me")',
            '=1+2 shows up in my report',
            '+86 138 0013 8000 请回电',
            '-50 元退款',
            '@客服 请尽快处理',
            '=cmd|'' /C calc''!A0'
        ] AS special_title,
        ARRAY['05e40000-0000-4000-8000-000000000001', '05e40000-0000-4000-8000-000000000002',
              '05e40000-0000-4000-8000-000000000003']::uuid[] AS staff,
        ARRAY['05e40000-0000-4000-8000-000000000004', '05e40000-0000-4000-8000-000000000005',
              '05e40000-0000-4000-8000-000000000006']::uuid[] AS customers
),
g AS (
    SELECT i,
           decode(md5('demo-ticket-rand-' || i), 'hex') AS r,
           i % 250 = 17 AS special                 -- 12 formula-like titles, always OPEN
    FROM generate_series(1, 3000) AS i
),
h AS (
    SELECT g.*,
           CASE WHEN special
                THEN date_trunc('second', now() - interval '1 hour' * (1 + 5 * (i / 250)))
                ELSE date_trunc('second', now() - interval '90 days'
                                                  * ((get_byte(r, 7) * 256 + get_byte(r, 8)) / 65536.0))
           END AS created,
           get_byte(r, 11) % 100 < 55 AS en,
           CASE WHEN i % 50 = 3 THEN E'\r\n' ELSE E'\n' END AS nl
    FROM g
),
k AS (
    SELECT h.*,
           extract(epoch FROM now() - created) / 86400 AS age_days,
           get_byte(r, 10) % 100 AS s
    FROM h
)
SELECT
    md5('demo-ticket-' || k.i)::uuid,
    '7ea40000-0000-4000-8000-000000000001'::uuid,
    CASE
        WHEN k.special THEN p.special_title[1 + (k.i / 250) % array_length(p.special_title, 1)]
        WHEN k.en THEN p.en_title[1 + get_byte(k.r, 0) % array_length(p.en_title, 1)]
                    || p.en_suffix[1 + get_byte(k.r, 1) % array_length(p.en_suffix, 1)]
        ELSE p.zh_title[1 + get_byte(k.r, 0) % array_length(p.zh_title, 1)]
             || p.zh_suffix[1 + get_byte(k.r, 1) % array_length(p.zh_suffix, 1)]
    END,
    CASE
        WHEN k.special THEN E'Pasted from our spreadsheet:\n=A1*2, "quoted", -3\n@ops please check'
        WHEN get_byte(k.r, 12) % 100 < 3 THEN ''
        WHEN k.en THEN p.en_greet[1 + get_byte(k.r, 2) % array_length(p.en_greet, 1)] || k.nl || k.nl
                    || p.en_detail[1 + get_byte(k.r, 3) % array_length(p.en_detail, 1)] || ' '
                    || p.en_detail[1 + (get_byte(k.r, 3) + 1 + get_byte(k.r, 13) % (array_length(p.en_detail, 1) - 1))
                                  % array_length(p.en_detail, 1)] || k.nl || k.nl
                    || p.en_close[1 + get_byte(k.r, 14) % array_length(p.en_close, 1)]
        ELSE p.zh_greet[1 + get_byte(k.r, 2) % array_length(p.zh_greet, 1)] || k.nl
             || p.zh_detail[1 + get_byte(k.r, 3) % array_length(p.zh_detail, 1)]
             || p.zh_detail[1 + (get_byte(k.r, 3) + 1 + get_byte(k.r, 13) % (array_length(p.zh_detail, 1) - 1))
                                  % array_length(p.zh_detail, 1)] || k.nl || k.nl
             || p.zh_close[1 + get_byte(k.r, 14) % array_length(p.zh_close, 1)]
    END,
    CASE
        WHEN k.special THEN 'OPEN'
        WHEN k.age_days < 7 THEN CASE WHEN k.s < 55 THEN 'OPEN' WHEN k.s < 85 THEN 'PENDING' ELSE 'CLOSED' END
        WHEN k.age_days < 30 THEN CASE WHEN k.s < 25 THEN 'OPEN' WHEN k.s < 50 THEN 'PENDING' ELSE 'CLOSED' END
        ELSE CASE WHEN k.s < 8 THEN 'OPEN' WHEN k.s < 15 THEN 'PENDING' ELSE 'CLOSED' END
    END,
    CASE
        WHEN get_byte(k.r, 4) % 20 < 4 THEN 'LOW'
        WHEN get_byte(k.r, 4) % 20 < 14 THEN 'NORMAL'
        WHEN get_byte(k.r, 4) % 20 < 18 THEN 'HIGH'
        ELSE 'URGENT'
    END,
    CASE WHEN get_byte(k.r, 5) % 20 < 3 THEN NULL                -- about 15 % unassigned
         ELSE p.staff[1 + get_byte(k.r, 6) % 3]
    END,
    CASE WHEN get_byte(k.r, 9) % 10 < 8 THEN p.customers[1 + get_byte(k.r, 15) % 3]
         ELSE p.staff[1 + get_byte(k.r, 15) % 3]                -- staff file internal tickets too
    END,
    k.created,
    date_trunc('second', k.created + (now() - k.created) * (get_byte(k.r, 12) / 255.0)),
    1
FROM k, p
ON CONFLICT (id) DO NOTHING;

-- A few tickets of team other: exports of team demo must never contain them.
INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id,
                    created_at, updated_at, version)
SELECT
    md5('other-ticket-' || i)::uuid,
    '7ea40000-0000-4000-8000-000000000002'::uuid,
    (ARRAY['Other Co: VPN access request', 'Other Co: 打印机无法连接',
           'Other Co: laptop replacement', 'Other Co: "Quarterly report" template broken',
           'Other Co: new starter, needs accounts', 'Other Co: Wi-Fi drops every hour'])[i],
    E'Internal ticket of Other Co.\nNot visible to team demo.',
    (ARRAY['OPEN', 'PENDING', 'CLOSED'])[1 + i % 3],
    (ARRAY['LOW', 'NORMAL', 'HIGH', 'URGENT'])[1 + i % 4],
    CASE WHEN i % 2 = 0 THEN '05e40000-0000-4000-8000-000000000007'::uuid END,
    '05e40000-0000-4000-8000-000000000007'::uuid,
    date_trunc('second', now() - interval '1 day' * (i * 11)),
    date_trunc('second', now() - interval '1 day' * (i * 11) + interval '2 hours'),
    1
FROM generate_series(1, 6) AS i
ON CONFLICT (id) DO NOTHING;

-- Issue 53 (R55): the demo team works in Shanghai, Monday to Friday with a lunch break, and is off for the Spring
-- Festival and National Day weeks of 2027. Set by its owner, ada.
INSERT INTO team_calendar (team_id, zone, shifts, holidays, updated_by) VALUES (
    '7ea40000-0000-4000-8000-000000000001', 'Asia/Shanghai',
    '[{"day":"MONDAY","start":"09:00","end":"12:00"},{"day":"MONDAY","start":"13:00","end":"18:00"},
      {"day":"TUESDAY","start":"09:00","end":"12:00"},{"day":"TUESDAY","start":"13:00","end":"18:00"},
      {"day":"WEDNESDAY","start":"09:00","end":"12:00"},{"day":"WEDNESDAY","start":"13:00","end":"18:00"},
      {"day":"THURSDAY","start":"09:00","end":"12:00"},{"day":"THURSDAY","start":"13:00","end":"18:00"},
      {"day":"FRIDAY","start":"09:00","end":"12:00"},{"day":"FRIDAY","start":"13:00","end":"18:00"}]',
    '[{"first":"2027-02-06","last":"2027-02-12","name":"春节 Spring Festival"},
      {"first":"2027-10-01","last":"2027-10-07","name":"国庆节 National Day"}]',
    '05e40000-0000-4000-8000-000000000001')
ON CONFLICT DO NOTHING;

-- Issue 53 (R56): the demo team's promises, in business minutes of its calendar. LOW has none.
INSERT INTO sla_policy (team_id, priority, first_response_minutes, resolution_minutes, warn_percent, updated_by) VALUES
    ('7ea40000-0000-4000-8000-000000000001', 'URGENT', 60, 480, 75, '05e40000-0000-4000-8000-000000000001'),
    ('7ea40000-0000-4000-8000-000000000001', 'HIGH', 240, 1440, 75, '05e40000-0000-4000-8000-000000000001'),
    ('7ea40000-0000-4000-8000-000000000001', 'NORMAL', 480, 2880, 75, '05e40000-0000-4000-8000-000000000001')
ON CONFLICT DO NOTHING;
